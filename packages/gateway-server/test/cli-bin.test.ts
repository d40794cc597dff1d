import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devBuild } from '../../../scripts/dev-build.mjs';

// Every variable the configuration's reference table names (`loadGatewayConfig`'s TSDoc).
const configSource = readFileSync(fileURLToPath(new URL('../src/config.ts', import.meta.url)), 'utf8');
const documentedVariables = [...configSource.matchAll(/^ \* \| `([A-Z_*]+)`(?: or `([A-Z_]+)`)? \|/gm)].flatMap((match) => match.slice(1).filter((name) => name !== undefined));

// The real executable, bundled from source the way `npm start` bundles the servers.
describe('the tollgate-gateway executable', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = await devBuild('packages/gateway-server/src/cli.ts', `.tollgate/build/tollgate-gateway-test-${process.pid}.mjs`);
  });
  afterAll(() => {
    rmSync(bundle, { force: true });
  });

  // An empty environment and a data directory that must stay unused: a started server would create it.
  const run = (...args: string[]) => spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'], TOLLGATE_DATA_DIR: '/nonexistent/tollgate-cli-test' }, timeout: 20_000 });

  it('prints the usage with --help and -h and exits 0 without starting a server', () => {
    for (const flag of ['--help', '-h']) {
      const result = run(flag);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^Usage: tollgate-gateway \[--help \| -h\]\n/);
      expect(result.stdout).toContain('https://github.com/tollgate-dev/tollgate#readme');
    }
  });

  it('names every configuration variable in the usage, one line each', () => {
    expect(documentedVariables.length).toBeGreaterThan(20);
    const { stdout } = run('--help');
    for (const variable of documentedVariables) expect(stdout).toMatch(new RegExp(`^  (?:[A-Z_]+ or )?${variable.replace('*', '\\*')}(?: |$)`, 'm'));
  });

  it('prints the usage to stderr with exit 2 for an unknown argument', () => {
    const result = run('--port', '80');
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^tollgate-gateway: unknown argument "--port"\n\nUsage: tollgate-gateway/);
  });
});
