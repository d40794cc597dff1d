import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, erc20Abi, http, parseEventLogs, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** The environment of a new user: nothing of ours configured (the developer's own settings are dropped). */
function freshUserEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(GATEWAY_|LICENSE_|TOLLGATE_|DATABASE_URL$)/.test(name)));
  return { ...env, ...extra };
}

/** Collects a child's stdout and stderr, and resolves with its exit code. */
function watch(child: ChildProcess): { output: () => string; exited: Promise<number | null> } {
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { output: () => output, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

/** Processes whose command line mentions `text` (anvil and its guard carry the data dir in `--state`). */
function processesMentioning(text: string): string[] {
  return execFileSync('ps', ['-eww', '-o', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text));
}

function field(output: string, pattern: RegExp): string {
  const value = pattern.exec(output)?.[1];
  if (value === undefined) throw new Error(`${pattern} not found in:\n${output}`);
  return value;
}

// `npm start` as a new user runs it: a fresh data directory, nothing prepared. Ports are left to the OS
// so the test never collides with a developer's running instance.
describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs both servers and the dev chain, pays a demo ref with the printed command, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: repositoryRoot,
      env: freshUserEnv({ TOLLGATE_DATA_DIR: dataDir, GATEWAY_PORT: '0', LICENSE_PORT: '0', LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = watch(child);
    try {
      const deadline = Date.now() + 120_000;
      while (!server.output().includes('Press Ctrl-C to stop.')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const banner = server.output();
      const gatewayUrl = field(banner, /gateway\s+(http:\/\/\S+)/);
      const licenseUrl = field(banner, /license\s+(http:\/\/\S+)/);
      const rpcUrl = field(banner, /chain RPC\s+(http:\/\/\S+)/);
      const usdc = field(banner, /test USDC\s+(0x[0-9a-fA-F]{40})/) as Address;
      const payer = field(banner, /demo payer\s+(0x[0-9a-fA-F]{40})/);
      const payerKey = field(banner, /payer key\s+(0x[0-9a-f]{64})/) as Hex;
      const payCommand = field(banner, /^\s+(TOLLGATE_DATA_DIR=\S+ npm run example -- pay-a-ref)$/m);
      expect(privateKeyToAccount(payerKey).address).toBe(payer);
      expect(banner).toMatch(/PUBLIC dev key .*never use it for real funds/);
      expect(banner).toMatch(/LICENSE_ROOT_PUBLIC_KEYS=[0-9a-f]{64}/);

      const gatewayHealth = await fetch(`${gatewayUrl}/healthz`);
      expect(gatewayHealth.status).toBe(200);
      const health = (await gatewayHealth.json()) as { receiptSigner: Address };
      expect(health).toMatchObject({ ok: true, status: 'ok', database: { ok: true, engine: 'pglite' }, chains: [{ network: 'local', ok: true }] });
      const licenseHealth = await fetch(`${licenseUrl}/health`);
      expect(licenseHealth.status).toBe(200);
      expect(await licenseHealth.json()).toMatchObject({ ok: true, service: 'tollgate-license' });
      expect(processesMentioning(dataDir).some((line) => /\banvil\b/.test(line))).toBe(true);

      // The printed command, run by a shell exactly as a user pastes it.
      const example = spawn('/bin/sh', ['-c', payCommand], { cwd: repositoryRoot, env: freshUserEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
      const paid = watch(example);
      const exampleExit = await paid.exited;
      expect(exampleExit, paid.output()).toBe(0);
      const output = paid.output();
      expect(output).toContain(`Receipt verified: signed by ${health.receiptSigner}`);
      const [, txHash, merchant] = /Transfer mined: tx (0x[0-9a-f]{64}) in block \d+: 10000 from 0x[0-9a-fA-F]{40} to (0x[0-9a-fA-F]{40})/.exec(output) ?? [];
      expect(txHash, output).toBeDefined();

      // The transfer is on the chain the banner names, not only in the example's words.
      const chain = createPublicClient({ transport: http(rpcUrl) });
      const receipt = await chain.getTransactionReceipt({ hash: txHash as Hash });
      expect(receipt.status).toBe('success');
      const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' }).map((log) => ({ token: log.address.toLowerCase(), ...log.args }));
      expect(transfers).toEqual([{ token: usdc.toLowerCase(), from: payer, to: merchant, value: 10_000n }]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    expect(processesMentioning(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'devchain', 'dev-stack.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'devchain', 'chain', 'anvil-state.json'))).toBe(true);
  }, 180_000);
});
