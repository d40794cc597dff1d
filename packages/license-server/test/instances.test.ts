import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { createRootSigner, signEpochCertificate, splitCborSequence } from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import { verifyArtifact, verifyKeyset } from '@tollgate/client-sdk';
import { createEpochRequest, loadEpochCertificate, type RunningLicenseServer } from '@tollgate/license-server';
import { bodyBytes, openServerSandbox, protoHeaders, serverEngines, type ServerSandbox } from './helpers';

const postgres = serverEngines.find((engine) => engine.name === 'postgres');

// N stateless instances on one PostgreSQL server: they must agree on the keyset and never fork the feed.
describe.skipIf(postgres === undefined)('two license server instances on one PostgreSQL database', () => {
  let sandbox: ServerSandbox;
  let first: RunningLicenseServer;
  let second: RunningLicenseServer;
  const root = createRootSigner(randomBytes(32), createNodeEd25519Signer);

  beforeAll(async () => {
    sandbox = await openServerSandbox(postgres!);
    const masterKey = randomBytes(32);
    const env = { LICENSE_MASTER_KEY: hexEncode(masterKey), LICENSE_ROOT_PUBLIC_KEYS: hexEncode(root.publicKey) };
    first = await sandbox.start(env);
    second = await sandbox.start(env);
    const { request } = await createEpochRequest(first.database.sql, { masterKey, days: 30 });
    await loadEpochCertificate(second.database.sql, { certificate: await signEpochCertificate(request, root), pinnedRoots: [root.publicKey] });
    await Promise.all([first.context.trust.refresh(), second.context.trust.refresh()]);
  });
  afterAll(() => sandbox.cleanup());

  it('serve the same keyset after a refresh, whichever instance ran the ceremony', async () => {
    const [a, b] = await Promise.all([first, second].map(async (server) => bodyBytes(await fetch(`${server.url}/v1/keys`, { headers: protoHeaders }))));
    expect(a).toEqual(b);
    expect(verifyKeyset(a!, [root.publicKey], Math.floor(Date.now() / 1000)).epochs.size).toBe(1);
  });

  it('publish 20 batches in parallel from both instances without forking or skipping a number', async () => {
    const published = await Promise.all(
      Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? first : second).context.trust.publishRevocation({ machineIds: [randomBytes(16)] })),
    );
    expect(published.map((batch) => batch.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    await Promise.all([first.context.trust.refresh(), second.context.trust.refresh()]);
    const keys = verifyKeyset(await bodyBytes(await fetch(`${second.url}/v1/keys`, { headers: protoHeaders })), [root.publicKey], Math.floor(Date.now() / 1000));
    expect(keys.revocationEpoch).toBe(20);
    const [fromFirst, fromSecond] = await Promise.all(
      [first, second].map(async (server) => bodyBytes(await fetch(`${server.url}/v1/revocations?since=0`, { headers: protoHeaders }))),
    );
    expect(fromFirst).toEqual(fromSecond);
    expect(splitCborSequence(fromFirst!).map((item) => verifyArtifact(item, 'revocation-batch', keys, { revokedEpochIds: [] }).payload.seq)).toEqual(published.map((batch) => batch.seq).sort((x, y) => x - y));
  });
});
