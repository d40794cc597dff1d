import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, coreMigrations, hexEncode, licenseMigrations, unixSeconds } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { licenseClockSkewSeconds, listEpochs, loadEpochSigningKeys, pickSigningEpoch } from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import { openTestDatabase } from '@tollgate/core/testing';
import { createKeysetFetcher } from '@tollgate/client-sdk';
import { ensureDevTrust } from '@tollgate/license-server';
import { openServerSandbox, type ServerSandbox } from './helpers';

const day = 86_400;

describe('dev mode (npm start)', () => {
  let sandbox: ServerSandbox;
  beforeAll(async () => {
    sandbox = await openServerSandbox({ name: 'pglite' });
  });
  afterAll(() => sandbox.cleanup());

  it('creates a dev root, master key and epoch on first start, prints the root, and reuses them later', async () => {
    const printed: string[] = [];
    const first = await sandbox.start({}, { print: (text) => printed.push(text) });
    const rootFile = join(sandbox.dataDir, 'license', 'dev-root.key');
    const masterFile = join(sandbox.dataDir, 'license', 'master.key');
    expect(statSync(rootFile).mode & 0o777).toBe(0o600);
    expect(statSync(masterFile).mode & 0o777).toBe(0o600);
    const rootHex = hexEncode(first.context.devTrust!.rootPublicKey);
    expect(JSON.parse(readFileSync(rootFile, 'utf8')).public_key).toBe(rootHex);
    expect(printed.join('\n')).toMatch(new RegExp(`created .*\\n.*LICENSE_ROOT_PUBLIC_KEYS=${rootHex}\\n.*new dev signing epoch [0-9a-f]{16} \\(90 days\\)`));
    expect(printed.join('\n')).not.toContain(readFileSync(masterFile, 'utf8').trim());
    const keyset = await createKeysetFetcher({ baseUrl: first.url, pinnedRoots: [rootHex] }).get();
    expect(keyset.epochs.size).toBe(1);
    const epochsBefore = await listEpochs(first.database.sql);
    await first.close();

    const reprinted: string[] = [];
    const second = await sandbox.start({}, { print: (text) => reprinted.push(text) });
    expect(hexEncode(second.context.devTrust!.rootPublicKey)).toBe(rootHex);
    expect(second.context.devTrust!.createdEpochId).toBeUndefined();
    expect(reprinted.join('\n')).toMatch(/reused/);
    expect((await listEpochs(second.database.sql)).map((epoch) => epoch.epochIdHex)).toEqual(epochsBefore.map((epoch) => epoch.epochIdHex));
    expect((await createKeysetFetcher({ baseUrl: second.url, pinnedRoots: [rootHex] }).get()).epochs.size).toBe(1);
  });
});

describe('dev epoch renewal', () => {
  it('creates a new 90-day epoch once less than 7 days remain, not before, and signs with it after the skew margin', async () => {
    const database = await openTestDatabase({ migrations: [coreMigrations, licenseMigrations] });
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-license-renewal-'));
    try {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const options = { masterKey: randomBytes(32), clock };
      const first = await ensureDevTrust({ dataDir }, database.sql, options);
      expect(first.createdEpochId).toMatch(/^[0-9a-f]{16}$/);

      clock.advance((90 - 7) * day * 1000); // exactly 7 days left: still covered
      expect((await ensureDevTrust({ dataDir }, database.sql, options)).createdEpochId).toBeUndefined();

      clock.advance(1000); // less than 7 days left: renewed
      const renewed = await ensureDevTrust({ dataDir }, database.sql, options);
      expect(renewed.createdEpochId).toMatch(/^[0-9a-f]{16}$/);
      expect(renewed.createdEpochId).not.toBe(first.createdEpochId);
      expect(renewed.rootCreated).toBe(false);
      const now = unixSeconds(clock);
      const epochs = await listEpochs(database.sql);
      expect(epochs.map((epoch) => [epoch.epochIdHex, epoch.status])).toEqual([
        [first.createdEpochId, 'active'],
        [renewed.createdEpochId, 'active'],
      ]);
      expect(epochs[1]).toMatchObject({ notBefore: now, notAfter: now + 90 * day });
      expect((await ensureDevTrust({ dataDir }, database.sql, options)).createdEpochId).toBeUndefined();

      const signers = (await loadEpochSigningKeys(database.sql, { masterKey: options.masterKey, now })).keys.map(({ epoch, privateKey }) => ({
        epoch,
        signer: createNodeEd25519Signer({ privateKey, kid: epoch.epochIdHex }),
      }));
      expect(pickSigningEpoch(signers, { now }).epoch.epochIdHex).toBe(first.createdEpochId);
      expect(pickSigningEpoch(signers, { now: now + licenseClockSkewSeconds }).epoch.epochIdHex).toBe(renewed.createdEpochId);
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
