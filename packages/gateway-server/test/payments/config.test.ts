// Configuration of payments: facilitator, timeouts, requirement timeout, evidence block span, and the
// gateway signing key (configured, or generated once and kept; required in production).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@tollgate/core';
import { gatewaySigningKeyPath, loadGatewayConfig, resolveGatewaySigningKey } from '@tollgate/gateway-server';
import { call, createRef, expectError, registerMerchant, startTestGateway } from '../helpers/gateway';
import { thrownBy } from '../../../core/test/support/thrown';

const problemsOf = (env: Record<string, string>): ConfigError['problems'] => thrownBy(ConfigError, () => loadGatewayConfig(env)).problems;

describe('payment configuration', () => {
  it('has defaults: no facilitator, 10 s verify, 60 s settle, 300 s authorizations, 2 000-block log ranges, a generated key', () => {
    expect(loadGatewayConfig({})).toMatchObject({
      facilitatorUrl: undefined,
      facilitatorHeaders: {},
      facilitatorTimeoutsMs: { verify: 10_000, settle: 60_000 },
      maxTimeoutSeconds: 300,
      maxBlockSpan: 2_000,
      statusCacheMs: 1_000,
      signingKey: undefined,
    });
  });

  it('reads every payment variable', () => {
    const key = generatePrivateKey();
    const config = loadGatewayConfig({
      GATEWAY_FACILITATOR_URL: 'https://facilitator.example.com/x402?key=abc',
      GATEWAY_FACILITATOR_HEADERS: JSON.stringify({ 'X-Api-Key': 'k1', authorization: 'Bearer t' }),
      GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS: '2500',
      GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS: '45000',
      GATEWAY_MAX_TIMEOUT_SECONDS: '60',
      GATEWAY_MAX_BLOCK_SPAN: '500',
      GATEWAY_STATUS_CACHE_MS: '0',
      GATEWAY_SIGNING_KEY: key.toUpperCase().replace('0X', '0x'),
    });
    expect(config).toMatchObject({
      facilitatorUrl: 'https://facilitator.example.com/x402?key=abc',
      facilitatorHeaders: { 'x-api-key': 'k1', authorization: 'Bearer t' },
      facilitatorTimeoutsMs: { verify: 2_500, settle: 45_000 },
      maxTimeoutSeconds: 60,
      maxBlockSpan: 500,
      statusCacheMs: 0,
      signingKey: key,
    });
  });

  it('names every wrong payment variable and never repeats a key, a header value or the facilitator URL', () => {
    const problems = problemsOf({
      GATEWAY_FACILITATOR_URL: 'ftp://facilitator.example.com/SECRETPATH',
      GATEWAY_FACILITATOR_HEADERS: JSON.stringify({ 'x-api-key': 'HEADERSECRET\nx' }),
      GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS: '0',
      GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS: 'soon',
      GATEWAY_MAX_TIMEOUT_SECONDS: '5',
      GATEWAY_MAX_BLOCK_SPAN: '0',
      GATEWAY_STATUS_CACHE_MS: '-1',
      GATEWAY_SIGNING_KEY: `0x${'f'.repeat(64)}`,
    });
    expect(problems.map((problem) => problem.variable).sort()).toEqual([
      'GATEWAY_FACILITATOR_HEADERS',
      'GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS',
      'GATEWAY_FACILITATOR_URL',
      'GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS',
      'GATEWAY_MAX_BLOCK_SPAN',
      'GATEWAY_MAX_TIMEOUT_SECONDS',
      'GATEWAY_SIGNING_KEY',
      'GATEWAY_STATUS_CACHE_MS',
    ]);
    const text = JSON.stringify(problems);
    for (const secret of ['SECRETPATH', 'HEADERSECRET', 'f'.repeat(64)]) expect(text).not.toContain(secret);
  });

  it('starts a gateway with GATEWAY_STATUS_CACHE_MS=0, whose 402s then read the ref’s status every time', async () => {
    const gateway = await startTestGateway({ GATEWAY_STATUS_CACHE_MS: '0' });
    try {
      const merchant = await registerMerchant(gateway.url);
      const refId = (await createRef(gateway.url, merchant)).body['refId'] as string;
      const path = `/receive/${merchant.payTo}?ref=${refId}`;
      expectError(await call(gateway.url, 'GET', path), 402, 'payment_required');
      // Revoked by "another instance": straight in the shared database, so no cache of this one is told.
      await gateway.server.database.sql.query(`UPDATE gateway_refs SET status = 'revoked', revoked_at = $2 WHERE id = $1`, [refId, new Date(gateway.clock.now())]);
      expectError(await call(gateway.url, 'GET', path), 410, 'ref_revoked');
    } finally {
      await gateway.close();
    }
  });

  it('warns at start about every network without an RPC when a facilitator is configured', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const gateway = await startTestGateway(
      { LOG_LEVEL: 'warn', GATEWAY_FACILITATOR_URL: 'http://127.0.0.1:9/x402', GATEWAY_RPC_URLS: 'base=http://127.0.0.1:9' },
      { logDestination: destination },
    );
    await gateway.close();
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string; networks?: string[] }).filter((line) => line.networks !== undefined);
    expect(warnings).toEqual([expect.objectContaining({ level: 40, networks: ['base-sepolia', 'local'], msg: expect.stringContaining('stays pending') })]);
  });

  it('refuses signing keys that are not secp256k1 scalars and headers that are not a JSON object of strings', () => {
    for (const key of [`0x${'0'.repeat(64)}`, '0x1234', 'a'.repeat(64), `0x${'g'.repeat(64)}`]) {
      expect(problemsOf({ GATEWAY_SIGNING_KEY: key }).map((problem) => problem.variable)).toEqual(['GATEWAY_SIGNING_KEY']);
    }
    for (const headers of ['[]', '"x"', '{not json', JSON.stringify({ 'bad name': 'x' }), JSON.stringify({ 'x-n': 1 })]) {
      expect(problemsOf({ GATEWAY_FACILITATOR_HEADERS: headers }).map((problem) => problem.variable)).toEqual(['GATEWAY_FACILITATOR_HEADERS']);
    }
  });
});

describe('the gateway signing key', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const warnings: string[] = [];
  const logger = { warn: (_object: object, message: string) => warnings.push(message) };
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-signing-'));
    dirs.push(dir);
    return dir;
  };

  it('is generated once with mode 0600, kept, and warned about without showing it', () => {
    const dataDir = freshDir();
    const first = resolveGatewaySigningKey({ signingKey: undefined, production: false, dataDir, logger });
    expect(first).toMatch(/^0x[0-9a-f]{64}$/);
    const path = gatewaySigningKeyPath(dataDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(first);
    expect(resolveGatewaySigningKey({ signingKey: undefined, production: false, dataDir, logger })).toBe(first);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).not.toContain(first.slice(2));
  });

  it('prefers the configured key, is required in production, and refuses a corrupt file', () => {
    const dataDir = freshDir();
    const configured = generatePrivateKey();
    expect(resolveGatewaySigningKey({ signingKey: configured, production: true, dataDir, logger })).toBe(configured);
    expect(() => resolveGatewaySigningKey({ signingKey: undefined, production: true, dataDir, logger })).toThrow(ConfigError);
    resolveGatewaySigningKey({ signingKey: undefined, production: false, dataDir, logger });
    writeFileSync(gatewaySigningKeyPath(dataDir), 'garbage');
    expect(() => resolveGatewaySigningKey({ signingKey: undefined, production: false, dataDir, logger })).toThrow(ConfigError);
  });

  it('is published as receiptSigner and survives a restart when generated', async () => {
    const first = await startTestGateway();
    const dataDir = first.dataDir;
    const before = (await call<{ receiptSigner: string }>(first.url, 'GET', '/healthz')).body.receiptSigner;
    expect(before).toBe(privateKeyToAccount(readFileSync(gatewaySigningKeyPath(dataDir), 'utf8').trim() as `0x${string}`).address);
    await first.server.close();
    const again = await startTestGateway({}, { dataDir, secret: first.secret });
    try {
      expect((await call<{ receiptSigner: string }>(again.url, 'GET', '/healthz')).body.receiptSigner).toBe(before);
    } finally {
      await again.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
