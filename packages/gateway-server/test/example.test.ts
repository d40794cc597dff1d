import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway';

// Runs examples/register-merchant.ts exactly as a reader would (`npm run example -- register-merchant`,
// which bundles it with esbuild because Node 20 cannot run TypeScript) against a real gateway.
let gateway: TestGateway;
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

describe('examples/register-merchant.ts', () => {
  it('walks challenge → sign → register → create ref → list → revoke against a running gateway', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/run-example.mjs', 'register-merchant'], {
      cwd: repositoryRoot,
      env: { ...process.env, GATEWAY_URL: gateway.url },
      timeout: 30_000,
    });
    for (const heading of ['1. Challenge', '2. Signature', '3. Registered', '4. Ref created', '5. Refs of this payTo', '6. Ref revoked']) {
      expect(stdout).toContain(`== ${heading}`);
    }
    expect(stdout).toContain('Tollgate merchant registration');
    expect(stdout).toMatch(/"status": "revoked"/);
    expect(stdout).not.toMatch(/tg_live_[A-Za-z0-9_-]{43}/);
  });
});
