import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '@tollgate/core';
import { randomBytes, utf8Encode } from '@tollgate/core/crypto';
import { createRootSigner, inspectArtifact, signEpochCertificate } from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import { createKeysetFetcher, createRevocationFollower, verifyKeyset } from '@tollgate/client-sdk';
import { createEpochRequest, devKeyPaths, loadEpochCertificate, signEpochRequestWithRootFile } from '@tollgate/license-server';
import { bodyBytes, errorBody, memoryLog, openServerSandbox, protoHeaders, serverEngines, type ServerSandbox } from '../helpers';

const now = () => Math.floor(Date.now() / 1000);

for (const engine of serverEngines) {
  describe(`the license server's trust state [${engine.name}]`, () => {
    let sandbox: ServerSandbox;
    beforeEach(async () => {
      sandbox = await openServerSandbox(engine);
    });
    afterEach(() => sandbox.cleanup());

    it('skips an epoch whose key does not open, logging it once, and keeps publishing and signing with the others', async () => {
      const log = memoryLog();
      const server = await sandbox.start({ LOG_LEVEL: 'warn' }, { logDestination: log.destination });
      const devEpoch = server.context.devTrust?.createdEpochId as string;
      // An epoch sealed under another master key (a CLI run with other settings), certified by the dev root.
      const { epoch: foreign, request } = await createEpochRequest(server.database.sql, { masterKey: randomBytes(32), days: 30, notBefore: now() - 3600 });
      const { certificate } = await signEpochRequestWithRootFile(devKeyPaths(sandbox).root, request);
      await loadEpochCertificate(server.database.sql, { certificate, pinnedRoots: server.context.pinnedRoots });
      await server.context.trust.refresh();
      await server.context.trust.refresh();

      const keys = await fetch(`${server.url}/v1/keys`, { headers: protoHeaders });
      expect(keys.status).toBe(200);
      expect([...verifyKeyset(await bodyBytes(keys), server.context.pinnedRoots, now()).epochs.keys()].sort()).toEqual([devEpoch, foreign.epochIdHex].sort());
      expect(server.context.trust.signingEpochs().map(({ epoch }) => epoch.epochIdHex)).toEqual([devEpoch]);
      const published = await server.context.trust.publishRevocation({ licenseIds: [randomBytes(16)] });
      expect(inspectArtifact(published.envelope).kidHex).toBe(devEpoch);
      const complaints = log.lines.filter((line) => line.includes(foreign.epochIdHex));
      expect(complaints).toHaveLength(1);
      expect(JSON.parse(complaints[0] as string)).toMatchObject({ level: 50, epochId: foreign.epochIdHex });
    });

    it('refuses to start when the master key opens none of the published active epochs', async () => {
      const first = await sandbox.start();
      await first.close();
      // The dev database, now started with a LICENSE_MASTER_KEY that did not seal its epoch.
      await expect(sandbox.start({ LICENSE_MASTER_KEY: hexEncode(randomBytes(32)) })).rejects.toThrow(/master key opens none of the 1 published active epochs.*LICENSE_MASTER_KEY/);
    });

    it('publishes only certificates that verify against the configured pins (a dev database reused with real pins)', async () => {
      const dev = await sandbox.start();
      const devEpoch = dev.context.devTrust?.createdEpochId as string;
      await dev.close();
      const root = createRootSigner(randomBytes(32), createNodeEd25519Signer);
      const masterKeyHex = readFileSync(devKeyPaths(sandbox).masterKey, 'utf8').trim();
      const log = memoryLog();
      const server = await sandbox.start(
        { LICENSE_ROOT_PUBLIC_KEYS: hexEncode(root.publicKey), LICENSE_MASTER_KEY: masterKeyHex, LOG_LEVEL: 'warn' },
        { logDestination: log.destination },
      );
      const { request } = await createEpochRequest(server.database.sql, { masterKey: hexDecode(masterKeyHex), days: 30 });
      const real = await loadEpochCertificate(server.database.sql, { certificate: await signEpochCertificate(request, root), pinnedRoots: [root.publicKey] });
      await server.context.trust.refresh();

      const keyset = await createKeysetFetcher({ baseUrl: server.url, pinnedRoots: [root.publicKey] }).get();
      expect([...keyset.epochs.keys()]).toEqual([real.epochIdHex]);
      expect(keyset.unpinnedCertificates).toBe(0);
      expect(server.context.trust.signingEpochs().map(({ epoch }) => epoch.epochIdHex)).toEqual([real.epochIdHex]);
      expect(log.lines.filter((line) => line.includes(devEpoch) && line.includes('unpinned_root'))).toHaveLength(1);
    });

    it('keeps a revoked epoch in the keyset so a client replaying the feed from 0 verifies what it signed, and stops signing with it', async () => {
      const server = await sandbox.start();
      const devEpoch = server.context.devTrust?.createdEpochId as string;
      const { epoch: second, request } = await createEpochRequest(server.database.sql, {
        masterKey: hexDecode(readFileSync(devKeyPaths(sandbox).masterKey, 'utf8').trim()),
        days: 30,
        notBefore: now() - 3600,
      });
      await loadEpochCertificate(server.database.sql, { certificate: (await signEpochRequestWithRootFile(devKeyPaths(sandbox).root, request)).certificate, pinnedRoots: server.context.pinnedRoots });
      await server.context.trust.refresh();
      // The newer, settled epoch signs batch 1; batch 2 (signed by the dev epoch) revokes it.
      expect(server.context.trust.signingEpochs().map(({ epoch }) => epoch.epochIdHex).sort()).toEqual([devEpoch, second.epochIdHex].sort());
      const first = await server.context.trust.publishRevocation({ licenseIds: [randomBytes(16)] });
      expect(first.seq).toBe(1);
      expect(inspectArtifact(first.envelope).kidHex).toBe(second.epochIdHex);
      await server.context.trust.publishRevocation({ epochIds: [second.epochId] });
      expect(server.context.trust.signingEpochs().map(({ epoch }) => epoch.epochIdHex)).toEqual([devEpoch]);
      expect((await server.context.trust.publishRevocation({ licenseIds: [randomBytes(16)] })).seq).toBe(3);

      const keysets = createKeysetFetcher({ baseUrl: server.url, pinnedRoots: server.context.pinnedRoots });
      const keyset = await keysets.get();
      expect([...keyset.epochs.keys()].sort()).toEqual([devEpoch, second.epochIdHex].sort());
      const follower = createRevocationFollower({ baseUrl: server.url, keys: () => keysets.get() });
      follower.observe(keyset.revocationEpoch);
      expect((await follower.sync()).map((batch) => batch.seq)).toEqual([1, 2, 3]);
      expect(follower.state().revokedEpochIds).toEqual([second.epochIdHex]);
    });

    it('never echoes request input into error messages, which stay under 1,024 bytes', async () => {
      const server = await sandbox.start();
      const long = 'x'.repeat(4000);
      for (const path of [`/v1/${long}`, `/v1/revocations?since=${'9'.repeat(4000)}`, `/v1/revocations?since=${long}`]) {
        const response = await fetch(`${server.url}${path}`, { headers: protoHeaders });
        expect(response.status, path.slice(0, 30)).toBeGreaterThanOrEqual(400);
        const message = String((await errorBody(response)).get(1) ?? '');
        expect(utf8Encode(message).length).toBeLessThanOrEqual(1024);
        expect(message).not.toContain('xxxxxxxxxx');
        expect(message).not.toContain('9999999999');
      }
    });
  });
}
