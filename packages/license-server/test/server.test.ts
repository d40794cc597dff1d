import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical } from '@tollgate/core/cbor';
import { licenseDatabaseDir, loadLicenseConfig, startLicenseServer, type RunningLicenseServer } from '@tollgate/license-server';

describe('license server', () => {
  let server: RunningLicenseServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-license-'));
    const template = process.env['TOLLGATE_PGLITE_TEMPLATE_DIR'];
    if (template) cpSync(template, licenseDatabaseDir({ dataDir }), { recursive: true });
    server = await startLicenseServer(loadLicenseConfig({ LICENSE_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { print: () => undefined });
  });

  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /health as JSON with ok, service and version after a real database check', async () => {
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({ ok: true, service: 'tollgate-license', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('renders unknown client paths as the CBOR error body with code 1000', async () => {
    const response = await fetch(`${server.url}/v1/unknown`, { method: 'POST', headers: { 'x-ls-proto': '1' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/cbor');
    const body = decodeCanonical(new Uint8Array(await response.arrayBuffer())) as Map<number, unknown>;
    expect(body.get(0)).toBe(1000);
  });

  it('names a wrong variable and what it expected', () => {
    expect(() => loadLicenseConfig({ LICENSE_PORT: '-1' })).toThrow(/LICENSE_PORT: expected an integer from 0 to 65535, got "-1"/);
  });

  it('closes the listener and the database on close()', async () => {
    const secondDataDir = mkdtempSync(join(tmpdir(), 'tollgate-license-'));
    try {
      const second = await startLicenseServer(loadLicenseConfig({ LICENSE_PORT: '0', TOLLGATE_DATA_DIR: secondDataDir, LOG_LEVEL: 'silent' }), { print: () => undefined });
      expect((await fetch(`${second.url}/health`)).status).toBe(200);
      await second.close();
      await expect(fetch(`${second.url}/health`)).rejects.toThrow();
      expect(await second.database.ping(500)).toBe(false);
    } finally {
      rmSync(secondDataDir, { recursive: true, force: true });
    }
  });
});
