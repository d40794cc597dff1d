import { expect, it } from 'vitest';
import { ManualClock, createNobleEd25519Signer, unixSeconds, type SqlClient } from '@tollgate/core';
import {
  ArtifactError,
  TrustChainError,
  activateEpochCertificate,
  buildKeyset,
  createPendingEpoch,
  decodeEpochCertificateRequest,
  listEpochs,
  loadEpochSigningKeys,
  signEpochCertificate,
  verifyKeyset,
} from '@tollgate/core/license';
import { describeConformance, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { epochCertificateFor, vectorBytes, vectorEpochs, vectorNow, vectorPins, vectorRoots } from '../../vectors/license-fixtures';
import { openLicenseTestDatabase, storeFixtureEpoch, testMasterKey as masterKey } from '../license-test-database';

const day = 86_400;

interface Fixture extends TestDatabase {
  clock: ManualClock;
}

async function pendingAndCertificate(sql: SqlClient, clock: ManualClock, options: { days?: number; productScope?: string } = {}) {
  const now = unixSeconds(clock);
  const created = await createPendingEpoch(sql, { masterKey, notBefore: now, notAfter: now + (options.days ?? 90) * day, clock, ...(options.productScope ? { productScope: options.productScope } : {}) });
  const certificate = await signEpochCertificate(created.request, vectorRoots.current.signer);
  return { ...created, certificate };
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'License epoch store',
    {
      name: engine.name,
      open: async (): Promise<Fixture> => ({ ...(await openLicenseTestDatabase(engine)), clock: new ManualClock(Date.UTC(2026, 0, 1)) }),
    },
    (fixture) => {
      it('creates a pending epoch whose request names its key and window, then activates the root-signed certificate', async () => {
        const { sql, clock } = fixture();
        const { epoch, request, certificate } = await pendingAndCertificate(sql, clock, { productScope: 'acme-editor' });
        expect(epoch.status).toBe('pending');
        expect(decodeEpochCertificateRequest(request)).toMatchObject({ epochId: epoch.epochId, publicKey: epoch.publicKey, productScope: 'acme-editor' });
        expect((await buildKeyset(sql, { pinnedRoots: vectorPins })).epochIds).toEqual([]);

        const activated = await activateEpochCertificate(sql, { certificate, pinnedRoots: vectorPins, clock });
        expect(activated.epochIdHex).toBe(epoch.epochIdHex);
        const [stored] = await listEpochs(sql);
        expect(stored).toMatchObject({ status: 'active', epochIdHex: epoch.epochIdHex, certificate });
        const keyset = await buildKeyset(sql, { pinnedRoots: vectorPins });
        expect(verifyKeyset(keyset.bytes, vectorPins, unixSeconds(clock)).epochs.get(epoch.epochIdHex)?.productScope).toBe('acme-editor');
      });

      it('opens the sealed private key of active epochs only, and the key matches the certified public key', async () => {
        const { sql, clock } = fixture();
        const active = await pendingAndCertificate(sql, clock);
        await activateEpochCertificate(sql, { certificate: active.certificate, pinnedRoots: vectorPins, clock });
        await pendingAndCertificate(sql, clock);
        const { keys, unopenable } = await loadEpochSigningKeys(sql, { masterKey, now: unixSeconds(clock) });
        expect(keys.map((key) => key.epoch.epochIdHex)).toEqual([active.epoch.epochIdHex]);
        expect(unopenable).toEqual([]);
        const signer = createNobleEd25519Signer({ privateKey: keys[0]!.privateKey, kid: active.epoch.epochIdHex });
        expect(signer.publicKey).toEqual(active.epoch.publicKey);
        const wrongKey = await loadEpochSigningKeys(sql, { masterKey: vectorBytes('wrong-master-key'), now: unixSeconds(clock) });
        expect(wrongKey.keys).toEqual([]);
        expect(wrongKey.unopenable.map(({ epoch, error }) => [epoch.epochIdHex, (error as { code?: string }).code])).toEqual([[active.epoch.epochIdHex, 'invalid_key']]);
      });

      it('skips an epoch whose key does not open and still opens the others', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, vectorEpochs.global);
        // Sealed under another master key, as `epoch create` does when it runs without LICENSE_MASTER_KEY.
        await storeFixtureEpoch(sql, vectorEpochs.unlisted, { masterKey: vectorBytes('dev-master-key') });
        const { keys, unopenable } = await loadEpochSigningKeys(sql, { masterKey, now: vectorNow });
        expect(keys.map(({ epoch }) => epoch.epochIdHex)).toEqual([vectorEpochs.global.epochIdHex]);
        expect(keys[0]!.privateKey).toEqual(vectorEpochs.global.seed);
        expect(unopenable.map(({ epoch }) => epoch.epochIdHex)).toEqual([vectorEpochs.unlisted.epochIdHex]);
      });

      it('lists only certificates that verify against the pins, and keeps revoked epochs listed', async () => {
        const { sql } = fixture();
        const { global, unlisted, successor, expired } = vectorEpochs;
        await storeFixtureEpoch(sql, global);
        await storeFixtureEpoch(sql, successor);
        await storeFixtureEpoch(sql, expired, { status: 'revoked' });
        // A dev epoch certified by a root that production does not pin.
        await storeFixtureEpoch(sql, unlisted, { certificate: await epochCertificateFor(unlisted, vectorRoots.unpinned) });
        const keyset = await buildKeyset(sql, { pinnedRoots: vectorPins });
        expect(keyset.epochIds).toEqual([expired.epochIdHex, global.epochIdHex, successor.epochIdHex]);
        expect(keyset.skipped).toEqual([{ epochIdHex: unlisted.epochIdHex, reason: 'unpinned_root' }]);
        const verified = verifyKeyset(keyset.bytes, vectorPins, vectorNow);
        expect(verified.unpinnedCertificates).toBe(0);
        expect([...verified.expiredEpochs.keys()]).toEqual([expired.epochIdHex]);
        // With only the next root pinned (after a rotation), the current root's epochs drop out too.
        expect((await buildKeyset(sql, { pinnedRoots: [vectorRoots.next.publicKey] })).epochIds).toEqual([successor.epochIdHex]);
        await expect(buildKeyset(sql, { pinnedRoots: [] })).rejects.toThrow(TypeError);
      });

      it('treats loading the same certificate again as a no-op', async () => {
        const { sql, clock } = fixture();
        const { certificate } = await pendingAndCertificate(sql, clock);
        await activateEpochCertificate(sql, { certificate, pinnedRoots: vectorPins, clock });
        await activateEpochCertificate(sql, { certificate, pinnedRoots: vectorPins, clock });
        expect((await listEpochs(sql)).map((epoch) => epoch.status)).toEqual(['active']);
      });

      it('refuses certificates from unpinned roots, for unknown or revoked epochs, for other windows, and expired ones', async () => {
        const { sql, clock } = fixture();
        const { epoch, request } = await pendingAndCertificate(sql, clock);
        const unpinned = await signEpochCertificate(request, vectorRoots.unpinned.signer);
        await expect(activateEpochCertificate(sql, { certificate: unpinned, pinnedRoots: vectorPins, clock })).rejects.toMatchObject({ reason: 'unpinned_root' });

        const typed = decodeEpochCertificateRequest(request);
        const otherWindow = await signEpochCertificate({ ...typed, notAfter: typed.notAfter + 1 }, vectorRoots.current.signer);
        await expect(activateEpochCertificate(sql, { certificate: otherWindow, pinnedRoots: vectorPins, clock })).rejects.toMatchObject({ code: 'certificate_mismatch' });
        const otherKey = await signEpochCertificate({ ...typed, publicKey: vectorRoots.next.publicKey }, vectorRoots.current.signer);
        await expect(activateEpochCertificate(sql, { certificate: otherKey, pinnedRoots: vectorPins, clock })).rejects.toBeInstanceOf(TrustChainError);

        const unknown = await signEpochCertificate({ ...typed, epochId: vectorBytes('never-created', 8) }, vectorRoots.current.signer);
        await expect(activateEpochCertificate(sql, { certificate: unknown, pinnedRoots: vectorPins, clock })).rejects.toMatchObject({ code: 'unknown_epoch' });

        const certificate = await signEpochCertificate(request, vectorRoots.current.signer);
        await sql.query(`UPDATE license_epochs SET status = 'revoked', certificate = $2 WHERE epoch_id = $1`, [epoch.epochId, certificate]);
        await expect(activateEpochCertificate(sql, { certificate, pinnedRoots: vectorPins, clock })).rejects.toMatchObject({ code: 'epoch_revoked' });

        const late = await pendingAndCertificate(sql, clock, { days: 1 });
        clock.advance(2 * day * 1000);
        await expect(activateEpochCertificate(sql, { certificate: late.certificate, pinnedRoots: vectorPins, clock })).rejects.toBeInstanceOf(ArtifactError);
      });

      it('keeps expired epochs in the keyset (for old revocation batches) but never signs with them', async () => {
        const { sql, clock } = fixture();
        const short = await pendingAndCertificate(sql, clock, { days: 1 });
        const long = await pendingAndCertificate(sql, clock, { days: 30 });
        for (const { certificate } of [short, long]) await activateEpochCertificate(sql, { certificate, pinnedRoots: vectorPins, clock });
        clock.advance(day * 1000);
        const now = unixSeconds(clock);
        const keyset = await buildKeyset(sql, { pinnedRoots: vectorPins });
        expect(new Set(keyset.epochIds)).toEqual(new Set([short.epoch.epochIdHex, long.epoch.epochIdHex]));
        const verified = verifyKeyset(keyset.bytes, vectorPins, now + 300);
        expect([...verified.epochs.keys()]).toEqual([long.epoch.epochIdHex]);
        expect([...verified.expiredEpochs.keys()]).toEqual([short.epoch.epochIdHex]);
        expect((await loadEpochSigningKeys(sql, { masterKey, now })).keys.map((key) => key.epoch.epochIdHex)).toEqual([long.epoch.epochIdHex]);
      });
    },
  );
}
