import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devBuild } from '../../../../scripts/dev-build.mjs';

// The real executable, bundled from source the way `npm start` bundles the servers.
describe('the tollgate-license executable', () => {
  let bundle: string;
  const work = mkdtempSync(join(tmpdir(), 'tollgate-license-bin-'));
  beforeAll(async () => {
    bundle = await devBuild('packages/license-server/src/cli.ts', `.tollgate/build/tollgate-license-test-${process.pid}.mjs`);
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  });

  it('creates a root key file with mode 0600 and exits 0, then refuses to overwrite it with exit 1', () => {
    const out = join(work, 'root.key');
    const created = spawnSync(process.execPath, [bundle, 'root', 'create', '--out', out], { encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^root public key: [0-9a-f]{64}\nroot key id: [0-9a-f]{16}\n$/);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const again = spawnSync(process.execPath, [bundle, 'root', 'create', '--out', out], { encoding: 'utf8' });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^tollgate-license: .*already exists/);
  });

  it('prints usage with exit 2 for an unknown command', () => {
    const result = spawnSync(process.execPath, [bundle, 'frobnicate'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/Usage: tollgate-license/);
  });
});
