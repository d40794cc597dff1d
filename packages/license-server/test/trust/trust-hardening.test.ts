/**
 * Trust chain hardening on the license server (issue #13): every 5xx of the key-distribution routes is
 * logged with its cause and nothing secret, and an epoch revoked through one instance stops signing on
 * another instance at once (change notice), not at its next keyset refresh.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { coreMigrations, hexEncode, licenseMigrations, systemClock, type SqlClient } from '@tollgate/core';
import { randomBytes, utf8Encode } from '@tollgate/core/crypto';
import {
  TrustChainError,
  createRootSigner,
  inspectArtifact,
  pickSigningEpoch,
  signArtifact,
  signEpochCertificate,
  type SigningEpoch,
} from '@tollgate/core/license';
import { createNodeEd25519Signer, serverLoggerOptions } from '@tollgate/core/node';
import { openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import {
  auditAnchorRoutes,
  createEpochRequest,
  createLicenseApp,
  createLicenseTrust,
  keysRoutes,
  loadEpochCertificate,
  openLicenseDatabase,
  revocationRoutes,
  type LicenseTrust,
} from '@tollgate/license-server';
import { startTrustChangeListener, type TrustChangeListener } from '@tollgate/core/node';
import { samplePayloads, vectorProductId } from '../../../core/test/vectors/license-fixtures';
import { errorBody, memoryLog, openServerSandbox, protoHeaders, serverEngines, type ServerSandbox } from '../helpers';

const postgres = serverEngines.find((engine) => engine.name === 'postgres');
const now = () => Math.floor(Date.now() / 1000);

/** A SqlClient whose every statement fails once `broken` is set, as a database that went away does. */
type FaultySql = SqlClient & { broken: boolean };

function faultySql(inner: SqlClient, cause: string): FaultySql {
  const client: FaultySql = {
    broken: false,
    query: ((text, params) => (client.broken ? Promise.reject(new Error(cause)) : inner.query(text, params))) as SqlClient['query'],
    exec: (script: string) => (client.broken ? Promise.reject(new Error(cause)) : inner.exec(script)),
    transaction: ((fn, options) => (client.broken ? Promise.reject(new Error(cause)) : inner.transaction(fn, options))) as SqlClient['transaction'],
    close: () => inner.close(),
  };
  return client;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

for (const engine of serverEngines) {
  describe(`5xx answers of the key-distribution routes are logged with their cause [${engine.name}]`, () => {
    let database: TestDatabase;
    let server: Server;
    let url: string;
    let sql: FaultySql;
    const log = memoryLog();
    const cause = 'connection terminated unexpectedly (simulated database failure)';
    const masterKey = randomBytes(32);
    const secretHeader = `Bearer tgla_${hexEncode(randomBytes(20))}`;

    beforeAll(async () => {
      database = await openTestDatabase({ engine, migrations: [coreMigrations, licenseMigrations] });
      sql = faultySql(database.sql, cause);
      const logger = pino(serverLoggerOptions({ service: 'tollgate-license', level: 'info' }), log.destination);
      const coldTrust = { keyset: () => undefined } as unknown as LicenseTrust;
      const app = createLicenseApp({ client: [...keysRoutes(coldTrust, { logger }), ...revocationRoutes(sql, { logger }), ...auditAnchorRoutes(sql, { logger })] }, logger);
      server = createServer(app);
      url = await listen(server);
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    });
    afterEach(() => {
      sql.broken = false;
      log.lines.length = 0;
    });

    const errorLines = () => log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => (line['level'] as number) >= 50);
    const causeLines = (text: string) => errorLines().filter((line) => JSON.stringify(line).includes(text));
    const headers = { ...protoHeaders, authorization: secretHeader, cookie: `session=${hexEncode(masterKey)}` };

    it('a healthy database answers without any error line', async () => {
      const response = await fetch(`${url}/v1/revocations?since=0`, { headers });
      expect(response.status).toBe(204);
      expect(errorLines()).toEqual([]);
    });

    for (const path of ['/v1/revocations?since=0', `/v1/audit/anchors/${'ab'.repeat(16)}`]) {
      it(`GET ${path} on a failing database: 500 with code 5000 and exactly one error line naming the cause, nothing secret`, async () => {
        sql.broken = true;
        const response = await fetch(`${url}${path}`, { headers });
        expect(response.status).toBe(500);
        expect((await errorBody(response)).get(0)).toBe(5000);
        // One line carries the cause (the request log adds its own status line, without one).
        const lines = causeLines(cause);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ level: 50, method: 'GET', path: path.split('?')[0], msg: 'license client route answered 5xx' });
        expect(errorLines().filter((line) => line['msg'] !== 'request failed')).toHaveLength(1);
        const all = log.lines.join('\n');
        expect(all).not.toContain(secretHeader);
        expect(all).not.toContain(hexEncode(masterKey));
        expect(all).not.toContain('since=0');
      });
    }

    it('GET /v1/keys while the keyset is cold: 503 with Retry-After, logged once with the reason', async () => {
      const response = await fetch(`${url}/v1/keys`, { headers });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      const lines = causeLines('keyset is not ready');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 50, method: 'GET', path: '/v1/keys' });
      expect(log.lines.join('\n')).not.toContain(secretHeader);
    });

    it('a malformed request is a 400 without an error line', async () => {
      const response = await fetch(`${url}/v1/revocations?since=01`, { headers });
      expect(response.status).toBe(400);
      expect(errorLines()).toEqual([]);
    });
  });
}

describe.skipIf(postgres === undefined)('an epoch revoked through one instance stops signing on another at once (PostgreSQL)', () => {
  let sandbox: ServerSandbox;
  const opened: { close(): Promise<void> }[] = [];
  let first: LicenseTrust;
  let second: LicenseTrust;
  let listener: TrustChangeListener;
  const notices: string[] = [];
  const waiters: { match: string; resolve: () => void }[] = [];
  const masterKey = randomBytes(32);
  const root = createRootSigner(randomBytes(32), createNodeEd25519Signer);
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    // A fresh database of its own: change notices are per database, so no other suite's notices arrive.
    sandbox = await openServerSandbox(postgres!);
    const databaseUrl = sandbox.env['LICENSE_DATABASE_URL'] as string;
    const a = await openLicenseDatabase({ dataDir: sandbox.dataDir, databaseUrl });
    const b = await openLicenseDatabase({ dataDir: sandbox.dataDir, databaseUrl });
    opened.push(a, b);
    for (const hoursAgo of [2, 1]) {
      const { request } = await createEpochRequest(a.sql, { masterKey, days: 30, notBefore: now() - hoursAgo * 3600 });
      await loadEpochCertificate(a.sql, { certificate: await signEpochCertificate(request, root), pinnedRoots: [root.publicKey] });
    }
    // A refresh period far beyond the test: only a change notice can make the second instance react.
    const options = { masterKey, pinnedRoots: [root.publicKey], clock: systemClock, logger, refreshIntervalMs: 3_600_000 };
    first = createLicenseTrust({ ...options, sql: a.sql });
    second = createLicenseTrust({ ...options, sql: b.sql });
    await Promise.all([first.firstBuild(), second.firstBuild()]);
    listener = startTrustChangeListener({
      connectionString: databaseUrl,
      trust: second,
      logger,
      onNotice: (notice) => {
        notices.push(notice);
        for (const waiter of waiters.filter((candidate) => candidate.match === notice)) waiter.resolve();
      },
    });
    await listener.ready;
  });
  afterAll(async () => {
    await listener?.close();
    await Promise.all([first?.close(), second?.close()]);
    await Promise.all(opened.map((database) => database.close()));
    await sandbox.cleanup();
  });

  const noticeOf = (match: string) => new Promise<void>((resolve) => (notices.includes(match) ? resolve() : waiters.push({ match, resolve })));

  it('the second instance refuses to sign with it, even through a signer it had already picked', async () => {
    expect(second.signingEpochs()).toHaveLength(2);
    const victim: SigningEpoch = pickSigningEpoch(second.signingEpochs(), { now: now() });
    const survivor = second.signingEpochs().find(({ epoch }) => epoch.epochIdHex !== victim.epoch.epochIdHex) as SigningEpoch;
    const payload = (await samplePayloads())['kill-order'];
    // Before: the second instance signs with the victim (it is the preferred epoch).
    expect(inspectArtifact(await signArtifact('kill-order', payload, { signer: victim.signer, productId: vectorProductId })).kidHex).toBe(victim.epoch.epochIdHex);

    const revoked = noticeOf(`epoch:${victim.epoch.epochIdHex}:revoked`);
    await first.publishRevocation({ epochIds: [victim.epoch.epochId] });
    await revoked; // the test's timeout is the hang guard

    // No refresh ran on the second instance (its period is an hour): the notice alone retired the epoch.
    expect(second.signingEpochs().map(({ epoch }) => epoch.epochIdHex)).toEqual([survivor.epoch.epochIdHex]);
    await expect(victim.signer.sign(utf8Encode('anything'))).rejects.toMatchObject({ code: 'epoch_revoked' });
    await expect(signArtifact('kill-order', payload, { signer: victim.signer, productId: vectorProductId })).rejects.toBeInstanceOf(TrustChainError);
    // Its next signature uses the surviving epoch.
    const next = pickSigningEpoch(second.signingEpochs(), { now: now() });
    expect(inspectArtifact(await signArtifact('kill-order', payload, { signer: next.signer, productId: vectorProductId })).kidHex).toBe(survivor.epoch.epochIdHex);
    const batch = await second.publishRevocation({ licenseIds: [randomBytes(16)] });
    expect(inspectArtifact(batch.envelope).kidHex).toBe(survivor.epoch.epochIdHex);

    // And the revoked epoch's sealed key is gone from the shared database.
    const { rows } = await (opened[1] as unknown as { sql: SqlClient }).sql.query<{ sealed_private_key: Uint8Array | null }>(
      'SELECT sealed_private_key FROM license_epochs WHERE epoch_id = $1',
      [victim.epoch.epochId],
    );
    expect(rows[0]?.sealed_private_key).toBeNull();
  });
});
