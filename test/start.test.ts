import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `npm start` as a new user runs it: a fresh data directory, nothing prepared. Ports are left to the OS
// so the test never collides with a developer's running instance.
describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts both servers, serves both health routes, and stops gracefully on SIGTERM', async () => {
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      env: { ...process.env, TOLLGATE_DATA_DIR: dataDir, GATEWAY_PORT: '0', LICENSE_PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    const deadline = Date.now() + 90_000;
    while (!/license\s+http:\/\/\S+/.test(output)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const gatewayUrl = /gateway\s+(http:\/\/\S+)/.exec(output)![1]!;
    const licenseUrl = /license\s+(http:\/\/\S+)/.exec(output)![1]!;

    const gatewayHealth = await fetch(`${gatewayUrl}/healthz`);
    expect(gatewayHealth.status).toBe(200);
    expect(await gatewayHealth.json()).toMatchObject({ ok: true, database: { ok: true, engine: 'pglite' } });
    const licenseHealth = await fetch(`${licenseUrl}/health`);
    expect(licenseHealth.status).toBe(200);
    expect(await licenseHealth.json()).toMatchObject({ ok: true, service: 'tollgate-license' });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
