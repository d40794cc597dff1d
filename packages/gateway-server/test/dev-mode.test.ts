import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { erc20Abi, getContractAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, hexEncode } from '@tollgate/core';
import { devStackFilePath, loadGatewayConfig, readDevStackFile, startGatewayServer, type DevChainInfo, type RunningGateway } from '@tollgate/gateway-server';
import { createDevPublicClient, devAccountKeys, devChainDefinition } from '@tollgate/gateway-server/devchain';
import { thrownBy } from '../../core/test/support/thrown';
import { createRef, dataDirFromTemplate, registerMerchant, type TestMerchant } from './helpers/gateway';

// Dev mode as `npm start` and the CLI run it: the real defaults (no helper presets), a temp data dir.
const dataDirs: string[] = [];
const started: RunningGateway[] = [];

afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function freshDataDir(): Promise<string> {
  const dir = await dataDirFromTemplate();
  dataDirs.push(dir);
  return dir;
}

/** The configuration of an operator who set nothing but the port and the data dir (plus `env`). */
function defaults(dataDir: string, env: Record<string, string> = {}) {
  return loadGatewayConfig({ GATEWAY_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
}

async function start(config: ReturnType<typeof loadGatewayConfig>): Promise<RunningGateway> {
  const gateway = await startGatewayServer(config);
  started.push(gateway);
  return gateway;
}

/** Processes whose command line mentions `dir` (anvil and its guard carry the data dir in `--state`). */
function processesMentioning(dir: string): string[] {
  return execFileSync('ps', ['-eww', '-o', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(dir));
}

function usdcBalances(dev: DevChainInfo, ...owners: Address[]): Promise<bigint[]> {
  const client = createDevPublicClient(devChainDefinition(dev.chainId, dev.rpcUrl), dev.rpcUrl);
  return Promise.all(owners.map((owner) => client.readContract({ address: dev.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })));
}

async function health(gateway: RunningGateway): Promise<Record<string, unknown>> {
  return (await (await fetch(`${gateway.url}/healthz`)).json()) as Record<string, unknown>;
}

const expectedUsdc = getContractAddress({ from: privateKeyToAccount(devAccountKeys.deployer).address, nonce: 0n });
const demoPayer = privateKeyToAccount(devAccountKeys.payer);
const secrets = { GATEWAY_SECRET: hexEncode(new Uint8Array(32).fill(7)), GATEWAY_SIGNING_KEY: generatePrivateKey() };

describe('dev mode with the defaults', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await freshDataDir();
  });
  let merchant: TestMerchant;
  let afterPayment: bigint[];

  it('starts the dev stack under the data dir, settles a payment through it, and stops it on close', async () => {
    const config = defaults(dataDir);
    expect(config.devChain).toBe(true);
    const gateway = await start(config);
    const dev = gateway.context.devChain!;
    expect(dev).toEqual({
      rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      chainId: 31337,
      network: 'eip155:31337',
      facilitatorUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      usdc: expectedUsdc,
      payer: { address: demoPayer.address, privateKey: devAccountKeys.payer },
      statePath: join(dataDir, 'devchain', 'chain', 'anvil-state.json'),
    });
    expect(readDevStackFile(dataDir)).toEqual({ gatewayUrl: gateway.url, ...dev });
    expect(await health(gateway)).toMatchObject({ status: 'ok', chains: [{ network: 'local', ok: true, chainId: 31337 }] });

    merchant = await registerMerchant(gateway.url, { network: 'local' });
    const ref = await createRef(gateway.url, merchant, { network: 'local', amount: '10000' });
    expect(ref.status, ref.text).toBe(201);
    const client = x402Client.fromConfig({
      schemes: [{ network: dev.network, client: new ExactEvmScheme(demoPayer) }],
      spendControls: { allowedAssets: [{ network: dev.network, asset: dev.usdc }] },
    });
    const paid = await wrapFetchWithPayment(fetch, client)((ref.body as { snapshot: { resource: string } }).snapshot.resource);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toMatchObject({ success: true, network: 'eip155:31337', payer: demoPayer.address });
    afterPayment = await usdcBalances(dev, demoPayer.address, merchant.payTo as Address);
    expect(afterPayment).toEqual([1_000_000_000n - 10_000n, 10_000n]);
    expect(processesMentioning(dataDir).length).toBeGreaterThan(0);

    await gateway.close();
    expect(processesMentioning(dataDir)).toEqual([]);
    expect(existsSync(devStackFilePath(dataDir))).toBe(false);
    expect(readDevStackFile(dataDir)).toBeUndefined();
    expect(existsSync(dev.statePath)).toBe(true);
    await expect(fetch(dev.rpcUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('keeps the token address, the balances and the merchant across a restart with the same data dir', async () => {
    const gateway = await start(defaults(dataDir));
    const dev = gateway.context.devChain!;
    expect(dev.usdc).toBe(expectedUsdc);
    expect(await usdcBalances(dev, demoPayer.address, merchant.payTo as Address)).toEqual(afterPayment);
    const me = await fetch(`${gateway.url}/merchant/me`, { headers: { authorization: `Bearer ${merchant.apiKey}` } });
    expect(me.status).toBe(200);
    await gateway.close();
    expect(processesMentioning(dataDir)).toEqual([]);
  });
});

describe('no dev stack', () => {
  it('never starts it with NODE_ENV=production (and the secrets production requires)', async () => {
    const dataDir = await freshDataDir();
    const config = defaults(dataDir, { NODE_ENV: 'production', ...secrets });
    expect(config.devChain).toBe(false);
    const gateway = await start(config);
    expect(gateway.context.devChain).toBeUndefined();
    expect(await health(gateway)).toMatchObject({ status: 'ok', chains: [] });
    expect(existsSync(join(dataDir, 'devchain'))).toBe(false);
    expect(processesMentioning(dataDir)).toEqual([]);
    await gateway.close();
  });

  it('does not start it when GATEWAY_FACILITATOR_URL is configured', async () => {
    const dataDir = await freshDataDir();
    const config = defaults(dataDir, { GATEWAY_FACILITATOR_URL: 'https://facilitator.example.com' });
    expect(config.devChain).toBe(false);
    const gateway = await start(config);
    expect(gateway.context.devChain).toBeUndefined();
    expect(existsSync(join(dataDir, 'devchain'))).toBe(false);
    expect(processesMentioning(dataDir)).toEqual([]);
    await gateway.close();
  });

  it('stops a dev stack it had started when the start fails later (unreachable database)', async () => {
    const dataDir = await freshDataDir();
    const config = defaults(dataDir, { DATABASE_URL: 'postgres://tollgate@127.0.0.1:1/unreachable' });
    expect(config.devChain).toBe(true);
    await expect(startGatewayServer(config)).rejects.toThrow();
    expect(existsSync(join(dataDir, 'devchain', 'chain'))).toBe(true);
    expect(processesMentioning(dataDir)).toEqual([]);
    expect(existsSync(devStackFilePath(dataDir))).toBe(false);
  });
});

describe('GATEWAY_DEV_CHAIN', () => {
  const localRpc = { GATEWAY_RPC_URLS: 'local=http://127.0.0.1:8545' };
  const localUsdc = { GATEWAY_LOCAL_USDC: expectedUsdc };
  const facilitator = { GATEWAY_FACILITATOR_URL: 'https://facilitator.example.com' };
  const production = { NODE_ENV: 'production', ...secrets };

  it('defaults to on unless production, a facilitator, a local RPC or a local USDC is configured', () => {
    const devChain = (env: Record<string, string>) => loadGatewayConfig(env).devChain;
    expect(devChain({})).toBe(true);
    expect(devChain({ GATEWAY_DEV_CHAIN: '' })).toBe(true);
    expect(devChain({ GATEWAY_RPC_URLS: 'base=https://mainnet.base.org' })).toBe(true);
    expect(devChain(production)).toBe(false);
    expect(devChain(facilitator)).toBe(false);
    expect(devChain(localRpc)).toBe(false);
    expect(devChain(localUsdc)).toBe(false);
  });

  it('0 or false turns it off, 1 or true turns it on', () => {
    for (const value of ['0', 'false']) expect(loadGatewayConfig({ GATEWAY_DEV_CHAIN: value }).devChain).toBe(false);
    for (const value of ['1', 'true']) expect(loadGatewayConfig({ GATEWAY_DEV_CHAIN: value }).devChain).toBe(true);
    expect(loadGatewayConfig({ GATEWAY_DEV_CHAIN: '0', ...facilitator, ...localRpc }).devChain).toBe(false);
  });

  it.each([
    ['production', production, /NODE_ENV=production/],
    ['a facilitator URL', facilitator, /GATEWAY_FACILITATOR_URL/],
    ['a local RPC URL', localRpc, /local entry in GATEWAY_RPC_URLS/],
    ['a local USDC', localUsdc, /GATEWAY_LOCAL_USDC/],
  ])('refuses an explicit 1 together with %s', (_name, env, reason) => {
    const error = thrownBy(ConfigError, () => loadGatewayConfig({ GATEWAY_DEV_CHAIN: '1', ...env }));
    expect(error.problems).toEqual([{ variable: 'GATEWAY_DEV_CHAIN', expected: expect.stringMatching(reason), received: '1' }]);
  });

  it('refuses a value that is not a boolean', () => {
    expect(thrownBy(ConfigError, () => loadGatewayConfig({ GATEWAY_DEV_CHAIN: 'yes' })).problems).toEqual([{ variable: 'GATEWAY_DEV_CHAIN', expected: 'true, false, 1 or 0', received: 'yes' }]);
  });
});

describe('readDevStackFile', () => {
  it('returns undefined without a dev file, and refuses a file that is not one', async () => {
    const dataDir = await freshDataDir();
    expect(readDevStackFile(dataDir)).toBeUndefined();
    mkdirSync(join(dataDir, 'devchain'), { recursive: true });
    writeFileSync(devStackFilePath(dataDir), '{"gatewayUrl":');
    expect(() => readDevStackFile(dataDir)).toThrow(/is not valid JSON/);
    writeFileSync(devStackFilePath(dataDir), JSON.stringify({ gatewayUrl: 'http://127.0.0.1:4020', rpcUrl: 'http://127.0.0.1:8545' }));
    expect(() => readDevStackFile(dataDir)).toThrow(/is not a Tollgate dev file/);
  });
});
