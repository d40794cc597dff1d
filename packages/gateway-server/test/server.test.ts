import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { serverLoggerOptions } from '@tollgate/core/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayDatabaseDir, healthRoutes, loadGatewayConfig, startGatewayServer, type RunningGateway } from '@tollgate/gateway-server';

/** Collects every log line a server writes. */
function logCollector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

/** A data dir whose embedded database starts from the prepared PGlite template (no initdb per test). */
function dataDirFromTemplate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-gateway-'));
  const template = process.env['TOLLGATE_PGLITE_TEMPLATE_DIR'];
  if (template) cpSync(template, gatewayDatabaseDir({ dataDir: dir }), { recursive: true });
  return dir;
}

describe('gateway server', () => {
  const logs = logCollector();
  let gateway: RunningGateway;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = dataDirFromTemplate();
    gateway = await startGatewayServer(loadGatewayConfig({ GATEWAY_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'info', GATEWAY_DEV_CHAIN: '0' }), {
      logDestination: logs.stream,
    });
  });

  afterAll(async () => {
    await gateway.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /healthz with a real database check', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({ ok: true, status: 'ok', service: 'tollgate-gateway', database: { ok: true, engine: 'pglite' }, chains: [] });
  });

  it('answers unknown routes with the gateway envelope', async () => {
    const response = await fetch(`${gateway.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ x402Version: 2, error: { code: 'not_found', message: expect.any(String), details: expect.any(Object) } });
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('never logs secret headers', async () => {
    const secrets = {
      authorization: 'Bearer tgk_super-secret-api-key',
      'payment-signature': 'eyJwYXltZW50IjoiZG8tbm90LWxvZy1tZSJ9',
      cookie: 'session=cookie-secret-value',
      'idempotency-key': 'idem-secret-key-123',
    };
    await fetch(`${gateway.url}/healthz`, { headers: secrets });
    await fetch(`${gateway.url}/missing`, { method: 'POST', headers: secrets, body: 'x' });
    const text = logs.text();
    expect(text).toContain('"path":"/healthz"');
    for (const value of Object.values(secrets)) expect(text).not.toContain(value.slice(7));
  });
});

describe('server logger options', () => {
  it('redact the secret headers wherever a request object is logged', () => {
    const logs = logCollector();
    const logger = pino(serverLoggerOptions({ service: 'test', level: 'info' }), logs.stream);
    logger.info({
      req: { headers: { authorization: 'Bearer abc123', 'payment-signature': 'sig456', cookie: 'c789', 'idempotency-key': 'k000', accept: 'json' } },
    });
    const line = JSON.parse(logs.text());
    expect(line.req.headers).toEqual({
      authorization: '[redacted]',
      'payment-signature': '[redacted]',
      cookie: '[redacted]',
      'idempotency-key': '[redacted]',
      accept: 'json',
    });
  });
});

describe('healthz', () => {
  it('reports 503 when the database does not answer', async () => {
    const [health] = healthRoutes({ database: { engine: 'postgres', ping: async () => false } });
    const response = await health!.handler({ method: 'GET', path: '/healthz', params: {}, query: {}, headers: {}, body: undefined });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ ok: false, status: 'down', database: { ok: false, engine: 'postgres' } });
  });
});

describe('configuration', () => {
  it('names the wrong variable and what it expected', () => {
    expect(() => loadGatewayConfig({ GATEWAY_PORT: 'eighty' })).toThrow(/GATEWAY_PORT: expected an integer from 0 to 65535, got "eighty"/);
    expect(() => loadGatewayConfig({ DATABASE_URL: 'mysql://db' })).toThrow(/DATABASE_URL: expected a URL with protocol postgres: or postgresql:/);
  });

  it('prefers GATEWAY_DATABASE_URL over DATABASE_URL', () => {
    expect(loadGatewayConfig({ DATABASE_URL: 'postgres://a/x', GATEWAY_DATABASE_URL: 'postgres://b/y' }).databaseUrl).toBe('postgres://b/y');
  });
});
