import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@tollgate/core';
import { decodeCanonical } from '@tollgate/core/cbor';
import {
  auditAnchorRoutes,
  createSqlAuditLog,
  encodeKeyset,
  licenseClientTable,
  licenseProtocolHeader,
  splitCborSequence,
  startAuditAnchorJob,
  verifyAuditAnchor,
  type AuditAnchorJob,
  type AuditLog,
  type SigningEpoch,
} from '@tollgate/core/license';
import { toExpress } from '@tollgate/core/node';
import { testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { createTestVendor } from '../audit/audit-test-helpers';
import { openLicenseTestDatabase, storeFixtureEpoch } from '../license-test-database';
import { epochCertificateFor, vectorEpochs, vectorNow, vectorPins } from '../../vectors/license-fixtures';

// Moved from packages/license-server/test/audit-anchors.test.ts with the job and route (#28): the route is
// served in the license client table (`licenseClientTable`, the server's middleware and CBOR error map).
const serverEngines = await testDatabaseEngines();
const protoHeaders = { [licenseProtocolHeader]: '1' };
const bodyBytes = async (response: Response): Promise<Uint8Array> => new Uint8Array(await response.arrayBuffer());
const errorBody = async (response: Response): Promise<Map<number, unknown>> => decodeCanonical(await bodyBytes(response)) as Map<number, unknown>;

const { global, acme, unlisted } = vectorEpochs;
const globalSigning: SigningEpoch = { epoch: global, signer: global.signer };

function recordingLogger() {
  const lines: { level: string; message: string | undefined }[] = [];
  const record = (level: string) => (_object: object, message?: string) => void lines.push({ level, message });
  return { lines, info: record('info'), warn: record('warn'), error: record('error') };
}

for (const engine of serverEngines) {
  describe(`audit anchors: route and job [${engine.name}]`, () => {
    let database: TestDatabase;
    let audit: AuditLog;
    let server: Server;
    let baseUrl: string;
    let clock: ManualClock;
    const jobs: AuditAnchorJob[] = [];

    beforeAll(async () => {
      database = await openLicenseTestDatabase(engine);
      audit = createSqlAuditLog(database.sql);
      server = createServer(toExpress(licenseClientTable(auditAnchorRoutes(database.sql), recordingLogger())));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await Promise.all(jobs.map((job) => job.close()));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    });
    beforeEach(async () => {
      await database.reset();
      await storeFixtureEpoch(database.sql, global);
      clock = new ManualClock(vectorNow * 1000);
    });

    const startJob = (signingEpochs: () => readonly SigningEpoch[], logger = recordingLogger(), intervalMs = 3_600_000) => {
      const job = startAuditAnchorJob({ sql: database.sql, trust: { signingEpochs }, clock, logger, intervalMs });
      jobs.push(job);
      return job;
    };
    const appendEvents = async (vendorId: string, count: number) => {
      for (let n = 0; n < count; n += 1) {
        await database.sql.transaction((tx) => audit.append(tx, { vendorId, actor: 'cli:test', action: 'product.create', targetType: 'product', targetId: `p-${n}`, summary: { n } }, clock.now()));
      }
    };
    const anchorsOf = (vendorId: string, query = '') => fetch(`${baseUrl}/v1/audit/anchors/${vendorId}${query}`, { headers: protoHeaders });

    it('anchors moved heads once per round, and serves them as a verifiable CBOR sequence, newest first', async () => {
      const vendorId = await createTestVendor(database.sql);
      expect((await anchorsOf(vendorId)).status).toBe(204);
      const job = startJob(() => [globalSigning]);
      await appendEvents(vendorId, 2);
      expect(await job.runOnce()).toMatchObject({ outcome: 'anchored', anchors: [{ vendorId, seq: 2 }] });
      expect(await job.runOnce()).toEqual({ outcome: 'anchored', anchors: [] });
      await appendEvents(vendorId, 1);
      expect(await job.runOnce()).toMatchObject({ outcome: 'anchored', anchors: [{ seq: 3 }] });

      const response = await anchorsOf(vendorId);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/cbor-seq');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const envelopes = splitCborSequence(await bodyBytes(response), 256);
      expect(envelopes).toHaveLength(2);
      const events = (await audit.list(vendorId, { limit: 200 })).events;
      const keyset = encodeKeyset({ protoVersion: 1, certificates: [await epochCertificateFor(global)], revocationEpoch: 0 });
      const results = envelopes.map((envelope) => verifyAuditAnchor(envelope, { trust: { keyset, pinnedRoots: vectorPins }, events, now: vectorNow, vendorId }));
      expect(results.map((result) => (result.verified ? result.anchor.seq : result.reason))).toEqual([3, 2]);
      expect(splitCborSequence(await bodyBytes(await anchorsOf(vendorId, '?limit=1')), 256)).toEqual([envelopes[0]]);
    });

    it('answers a malformed vendor id or limit with code 1000, and a request without X-LS-Proto with 1004', async () => {
      for (const path of ['/v1/audit/anchors/xyz', `/v1/audit/anchors/${'AB'.repeat(16)}`, `/v1/audit/anchors/${'ab'.repeat(17)}`]) {
        const response = await fetch(`${baseUrl}${path}`, { headers: protoHeaders });
        expect(response.status, path).toBe(400);
        expect((await errorBody(response)).get(0)).toBe(1000);
      }
      for (const limit of ['0', '257', 'abc', '01', '']) {
        const response = await anchorsOf('ab'.repeat(16), `?limit=${limit}`);
        expect(response.status, limit).toBe(400);
        expect((await errorBody(response)).get(0)).toBe(1000);
      }
      const unversioned = await fetch(`${baseUrl}/v1/audit/anchors/${'ab'.repeat(16)}`);
      expect(unversioned.status).toBe(426);
      expect((await errorBody(unversioned)).get(0)).toBe(1004);
    });

    it('logs and survives a round without a global epoch or with a signer the database does not know', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 1);
      let epochs: SigningEpoch[] = [];
      const logger = recordingLogger();
      const job = startJob(() => epochs, logger);
      expect(await job.runOnce()).toEqual({ outcome: 'no_signing_epoch' });
      epochs = [{ epoch: acme, signer: acme.signer }];
      expect(await job.runOnce()).toEqual({ outcome: 'no_signing_epoch' });
      epochs = [{ epoch: unlisted, signer: unlisted.signer }];
      expect(await job.runOnce()).toEqual({ outcome: 'failed' });
      expect(logger.lines.map((line) => line.level)).toEqual(['warn', 'warn', 'error']);
      epochs = [globalSigning];
      expect(await job.runOnce()).toMatchObject({ outcome: 'anchored', anchors: [{ vendorId, seq: 1 }] });
      await job.close();
      expect(await job.runOnce()).toEqual({ outcome: 'closed' });
    });

    it('runs by itself every interval', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 1);
      const job = startJob(() => [globalSigning], recordingLogger(), 25);
      await vi.waitFor(async () => expect((await anchorsOf(vendorId)).status).toBe(200), { timeout: 5_000, interval: 25 });
      await job.close();
    });

    it.skipIf(engine.name === 'pglite')('skips the round while another instance holds the anchoring lock', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 1);
      const job = startJob(() => [globalSigning]);
      const other = await database.connect();
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const holder = other.transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('tollgate_audit_anchor_job:' || current_schema(), 0))`);
        locked();
        await released;
      });
      await holding;
      expect(await job.runOnce()).toEqual({ outcome: 'busy' });
      release();
      await holder;
      expect(await job.runOnce()).toMatchObject({ outcome: 'anchored', anchors: [{ seq: 1 }] });
    });
  });
}
