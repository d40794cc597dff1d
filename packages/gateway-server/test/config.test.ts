import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { ConfigError, hexEncode } from '@tollgate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewaySecretPath, loadGatewayConfig, resolveGatewaySecret, startGatewayServer } from '@tollgate/gateway-server';
import { dataDirFromTemplate } from './helpers/gateway';
import { thrownBy } from '../../core/test/support/thrown';

const secretHex = 'ab'.repeat(32);

const problemsOf = (env: Record<string, string>): ConfigError['problems'] => thrownBy(ConfigError, () => loadGatewayConfig(env)).problems;

describe('gateway configuration', () => {
  it('has safe defaults', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      publicUrl: undefined,
      secret: undefined,
      production: false,
      rpcUrls: {},
      rpcTimeoutMs: 5_000,
      extraNetworks: [],
      trustProxy: 0,
      rateLimits: {
        challenge: { limit: 10, windowMs: 60_000 },
        register: { limit: 10, windowMs: 60_000 },
        refLookup: { limit: 120, windowMs: 60_000 },
        receive: { limit: 600, windowMs: 60_000 },
      },
    });
  });

  it('reads every gateway variable', () => {
    const config = loadGatewayConfig({
      GATEWAY_PUBLIC_URL: 'https://pay.example.com/',
      GATEWAY_SECRET: secretHex,
      GATEWAY_RPC_URLS: 'base=https://mainnet.base.org/?key=a=b, local=http://127.0.0.1:8545',
      GATEWAY_RPC_TIMEOUT_MS: '1500',
      GATEWAY_LOCAL_USDC: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      GATEWAY_EXTRA_NETWORKS: JSON.stringify([{ name: 'polygon', chainId: 137, usdc: { address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', name: 'USD Coin', version: '2' } }]),
      GATEWAY_RATE_LIMIT_CHALLENGE: '5/30',
      GATEWAY_RATE_LIMIT_REGISTER: '3/600',
      GATEWAY_RATE_LIMIT_REF_LOOKUP: '1000/60',
      GATEWAY_RATE_LIMIT_RECEIVE: '50/1',
      GATEWAY_TRUST_PROXY: '2',
    });
    expect(config.publicUrl).toBe('https://pay.example.com');
    expect(hexEncode(config.secret as Uint8Array)).toBe(secretHex);
    expect(config.rpcUrls).toEqual({ base: 'https://mainnet.base.org/?key=a=b', local: 'http://127.0.0.1:8545' });
    expect(config.extraNetworks).toEqual([
      { name: 'polygon', chainId: 137, caip2: 'eip155:137', usdc: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', name: 'USD Coin', version: '2', decimals: 6 } },
    ]);
    expect(config.rateLimits).toEqual({
      challenge: { limit: 5, windowMs: 30_000 },
      register: { limit: 3, windowMs: 600_000 },
      refLookup: { limit: 1000, windowMs: 60_000 },
      receive: { limit: 50, windowMs: 1_000 },
    });
    expect(config).toMatchObject({ rpcTimeoutMs: 1500, localUsdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3', trustProxy: 2 });
  });

  it('names every wrong variable at once and never repeats a secret or an RPC URL', () => {
    const problems = problemsOf({
      GATEWAY_PUBLIC_URL: 'https://pay.example.com/shop',
      GATEWAY_SECRET: 'hunter2-not-32-bytes',
      GATEWAY_RPC_URLS: 'base=ftp://rpc.example.com/SECRETKEY',
      GATEWAY_EXTRA_NETWORKS: '{not json',
      GATEWAY_RATE_LIMIT_CHALLENGE: '10 per minute',
      GATEWAY_RATE_LIMIT_REGISTER: '0/60',
      GATEWAY_RATE_LIMIT_REF_LOOKUP: '5/0',
      GATEWAY_RATE_LIMIT_RECEIVE: '2000000/60',
      GATEWAY_LOCAL_USDC: '0x12',
      GATEWAY_TRUST_PROXY: '99',
    });
    expect(problems.map((problem) => problem.variable).sort()).toEqual([
      'GATEWAY_EXTRA_NETWORKS',
      'GATEWAY_LOCAL_USDC',
      'GATEWAY_PUBLIC_URL',
      'GATEWAY_RATE_LIMIT_CHALLENGE',
      'GATEWAY_RATE_LIMIT_RECEIVE',
      'GATEWAY_RATE_LIMIT_REF_LOOKUP',
      'GATEWAY_RATE_LIMIT_REGISTER',
      'GATEWAY_RPC_URLS',
      'GATEWAY_SECRET',
      'GATEWAY_TRUST_PROXY',
    ]);
    const text = JSON.stringify(problems);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('SECRETKEY');
  });

  it('refuses RPC URLs for unknown networks and extra networks that clash', () => {
    expect(problemsOf({ GATEWAY_RPC_URLS: 'mainnet=https://rpc.example.com' }).map((p) => p.variable)).toEqual(['GATEWAY_RPC_URLS']);
    const clash = JSON.stringify([{ name: 'base', chainId: 1, usdc: { address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', name: 'x', version: '1' } }]);
    expect(problemsOf({ GATEWAY_EXTRA_NETWORKS: clash }).map((p) => p.variable)).toEqual(['GATEWAY_EXTRA_NETWORKS']);
    expect(loadGatewayConfig({ GATEWAY_EXTRA_NETWORKS: clash.replace('"base"', '"mainnet"'), GATEWAY_RPC_URLS: 'mainnet=https://rpc.example.com' }).rpcUrls).toEqual({
      mainnet: 'https://rpc.example.com',
    });
  });

  it('requires GATEWAY_SECRET and GATEWAY_SIGNING_KEY in production, reported at once with every other problem', () => {
    expect(problemsOf({ NODE_ENV: 'production', GATEWAY_PORT: 'x' })).toEqual([
      { variable: 'GATEWAY_PORT', expected: expect.any(String), received: 'x' },
      { variable: 'GATEWAY_SECRET', expected: expect.stringContaining('production'), received: undefined },
      { variable: 'GATEWAY_SIGNING_KEY', expected: expect.stringContaining('production'), received: undefined },
    ]);
    expect(problemsOf({ NODE_ENV: 'production', GATEWAY_SECRET: secretHex }).map((problem) => problem.variable)).toEqual(['GATEWAY_SIGNING_KEY']);
    expect(problemsOf({ NODE_ENV: 'production', GATEWAY_SECRET: secretHex, GATEWAY_SIGNING_KEY: '0x1234' })).toEqual([
      { variable: 'GATEWAY_SIGNING_KEY', expected: expect.not.stringContaining('required when NODE_ENV'), received: expect.stringContaining('redacted') },
    ]);
    expect(loadGatewayConfig({ NODE_ENV: 'production', GATEWAY_SECRET: secretHex, GATEWAY_SIGNING_KEY: generatePrivateKey() }).production).toBe(true);
  });
});

describe('generated gateway secret', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const warnings: string[] = [];
  const logger = { warn: (_object: object, message: string) => warnings.push(message) };

  it('is generated once with mode 0600, kept, and warned about', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-secret-'));
    dirs.push(dataDir);
    const first = resolveGatewaySecret({ secret: undefined, production: false, dataDir, logger });
    expect(first).toHaveLength(32);
    const path = gatewaySecretPath(dataDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(hexEncode(first));
    expect(resolveGatewaySecret({ secret: undefined, production: false, dataDir, logger })).toEqual(first);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).not.toContain(hexEncode(first));
  });

  it('prefers the configured secret, refuses production without one, and refuses a corrupt file', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-secret-'));
    dirs.push(dataDir);
    const configured = new Uint8Array(32).fill(1);
    expect(resolveGatewaySecret({ secret: configured, production: true, dataDir, logger })).toBe(configured);
    expect(() => resolveGatewaySecret({ secret: undefined, production: true, dataDir, logger })).toThrow(ConfigError);
    resolveGatewaySecret({ secret: undefined, production: false, dataDir, logger });
    writeFileSync(gatewaySecretPath(dataDir), 'garbage');
    expect(() => resolveGatewaySecret({ secret: undefined, production: false, dataDir, logger })).toThrow(ConfigError);
  });

  it('is used by a server started without GATEWAY_SECRET, so API keys survive a restart', async () => {
    const dataDir = await dataDirFromTemplate();
    dirs.push(dataDir);
    const start = () => startGatewayServer(loadGatewayConfig({ GATEWAY_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', GATEWAY_DEV_CHAIN: '0' }));
    let server = await start();
    const { privateKeyToAccount, generatePrivateKey } = await import('viem/accounts');
    const account = privateKeyToAccount(generatePrivateKey());
    const challenge = await (await fetch(`${server.url}/merchant/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payTo: account.address, network: 'base', action: 'merchant.register' }),
    })).json();
    expect(challenge.message.origin).toBe(`http://localhost:${server.port}`);
    const signature = await account.signMessage({ message: challenge.signingMessage });
    const registered = await (await fetch(`${server.url}/merchant/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ challengeId: challenge.challengeId, payTo: account.address, network: 'base', label: 'Restart', signature }),
    })).json();
    await server.close();
    server = await start();
    try {
      const me = await fetch(`${server.url}/merchant/me`, { headers: { authorization: `Bearer ${registered.apiKey}` } });
      expect(me.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
