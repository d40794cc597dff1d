import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveAnvilBinary, startAnvil } from '@tollgate/gateway-server/devchain';

const scratch = mkdtempSync(join(tmpdir(), 'tollgate-anvil-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function chainIdAt(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return Number.parseInt(((await response.json()) as { result: string }).result, 16);
  } catch {
    return undefined;
  }
}

/** Polls until nothing answers at `rpcUrl` (an external process shutting down), at most `ms`. */
async function answersWithin(rpcUrl: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await chainIdAt(rpcUrl)) === undefined) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startAnvil', () => {
  it('resolves the binary from the npm platform package', () => {
    expect(resolveAnvilBinary()).toMatch(/@foundry-rs[/\\]anvil-[a-z0-9]+-[a-z0-9]+[/\\]bin[/\\]anvil(\.exe)?$/);
  });

  it('starts on a free port with the requested chain id and stops completely', async () => {
    const anvil = await startAnvil({ chainId: 1337 });
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    expect(anvil.chainId).toBe(1337);
    expect(await chainIdAt(anvil.rpcUrl)).toBe(1337);
    expect(isAlive(anvil.pid)).toBe(true);
    await Promise.all([anvil.stop(), anvil.stop()]);
    expect(isAlive(anvil.pid)).toBe(false);
    expect(await chainIdAt(anvil.rpcUrl)).toBeUndefined();
  });

  it('refuses a port that is already taken, with a clear error', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(startAnvil({ port })).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it('reports a binary that fails to start', async () => {
    await expect(startAnvil({ binaryPath: join(scratch, 'no-such-anvil') })).rejects.toThrow(/anvil exited during start-up: .*no-such-anvil/);
  });

  it('gives up after startTimeoutMs when the node never answers, and kills it', async () => {
    const mute = join(scratch, 'mute-anvil.sh');
    writeFileSync(mute, '#!/bin/sh\nexec sleep 30\n');
    chmodSync(mute, 0o755);
    const started = Date.now();
    await expect(startAnvil({ binaryPath: mute, startTimeoutMs: 300 })).rejects.toThrow(/did not answer eth_chainId .* within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not outlive a parent process that is killed with SIGKILL', async () => {
    const entry = join(scratch, 'parent.ts');
    writeFileSync(
      entry,
      `import { startAnvil } from ${JSON.stringify(resolve(__dirname, '../../src/devchain/anvil.ts'))};\n` +
        `const anvil = await startAnvil({ binaryPath: process.env.ANVIL_BIN });\n` +
        `process.stdout.write(anvil.rpcUrl + '\\n');\n` +
        `setInterval(() => undefined, 1_000);\n`,
    );
    const bundle = join(scratch, 'parent.mjs');
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', logLevel: 'silent' });
    const parent = spawn(process.execPath, [bundle], { env: { ...process.env, ANVIL_BIN: resolveAnvilBinary() }, stdio: ['ignore', 'pipe', 'inherit'] });
    const rpcUrl = await new Promise<string>((r) => parent.stdout.once('data', (chunk: Buffer) => r(chunk.toString().trim())));
    expect(await chainIdAt(rpcUrl)).toBe(31337);
    parent.kill('SIGKILL');
    expect(await answersWithin(rpcUrl, 5_000)).toBe(false);
  });
});
