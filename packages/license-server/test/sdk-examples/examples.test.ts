// The license examples run as a reader runs them, against a real license server: the Node CLI
// (`npm run example -- license-node-cli`, bundled with esbuild) activates, then runs again from its
// encrypted file with the server unreachable and rides the grace window; the feature-gate example
// redraws its menu on every state change; the Electron main-process integration runs under Node with
// a fake of the few Electron APIs it touches. The server's clock runs two minutes behind the device's,
// so a credential it issues (one-minute validation interval) is already due when the app next starts:
// that is how a subprocess, which cannot be handed a manual clock, reaches the grace window at once.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { channels, startLicensing, type LicenseSnapshot } from '../../../../examples/license-electron/main';
import { freshKey } from '../admin/admin-harness';
import { seedCatalog } from '../admin/admin-license-fixtures';
import { issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { fakeElectron } from './fake-electron';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const pglite = serverEngines.find((engine) => engine.name === 'pglite');
/** Nothing listens there: the license server, gone. */
export const unreachableUrl = 'http://127.0.0.1:9';
let bench: ClientBench;
const directories: string[] = [];

beforeAll(async () => {
  bench = await openClientBench(pglite!, {}, { clock: { now: () => Date.now() - 120_000 } });
  await seedCatalog(bench.admin, bench.admin.vendorA, [
    { kind: 'feature', id: 'export-pdf' },
    { kind: 'feature', id: 'sync' },
    { kind: 'tier', id: 'studio', features: ['export-pdf'] },
  ]);
}, 120_000);
afterAll(async () => {
  await bench?.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Terms of the examples' licenses: validate every minute, a day of grace, the studio tier. */
const terms = { tier: 'studio', validation_interval_seconds: 60, validation_grace_seconds: 86_400 };

function scratchDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-license-example-'));
  directories.push(directory);
  return directory;
}

interface ExampleRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npm run example -- <name> [args]` with `env`; resolves with the exit code whatever it is. */
async function runExample(name: string, args: string[], env: Record<string, string>): Promise<ExampleRun> {
  const licenseEnv = { LICENSE_SERVER_URL: bench.url, LICENSE_PRODUCT_ID: bench.productId, LICENSE_PINNED_ROOTS: bench.admin.server.context.pinnedRoots.map((root) => hexEncode(root)).join(',') };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/run-example.mjs', name, ...args], { cwd: repositoryRoot, env: { ...process.env, ...licenseEnv, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('examples/license-node-cli.ts', () => {
  it('activates, gates export on the tier, and runs from its encrypted file in grace while the server is unreachable', async () => {
    const license = await issueClientLicense(bench, terms);
    const stateDir = scratchDirectory();
    const deviceSecret = hexEncode(crypto.getRandomValues(new Uint8Array(32)));
    const env = { LICENSE_STATE_DIR: stateDir, DEVICE_SECRET: deviceSecret };

    const first = await runExample('license-node-cli', [license.key], env);
    expect(first, first.stderr).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('license: active\ntier: studio\nexport-pdf: exporting report.pdf');
    const file = readFileSync(join(stateDir, 'license.bin'));
    expect(file.subarray(0, 4).toString()).toBe('TGLS');
    expect(file.includes(Buffer.from(license.key))).toBe(false);
    expect(file.includes(Buffer.from(bench.productId))).toBe(false);

    // The server is gone: the stored license is due for validation, the check fails, grace carries on.
    const offline = await runExample('license-node-cli', [], { ...env, LICENSE_SERVER_URL: unreachableUrl });
    expect(offline, offline.stderr).toMatchObject({ code: 0 });
    expect(offline.stderr).toMatch(/\[license\] needs_revalidation \(refresh_due\)/);
    expect(offline.stderr).toMatch(/\[license\] grace \(server_unreachable\) until \d{4}-/);
    expect(offline.stdout).toContain('license: grace\ntier: studio\nexport-pdf: exporting report.pdf');

    // Back online: the check goes through and the license is active again.
    const online = await runExample('license-node-cli', [], env);
    expect(online.stdout).toContain('license: active');

    // The file opens only under its key: with another device secret the app does not run.
    const otherKey = await runExample('license-node-cli', [], { ...env, DEVICE_SECRET: hexEncode(crypto.getRandomValues(new Uint8Array(32))) });
    expect(otherKey.code).toBe(1);
    expect(otherKey.stdout).toContain('license: unlicensed');
    expect(otherKey.stdout).not.toContain('export-pdf');
  }, 120_000);

  it('refuses to run without a license and without a key', async () => {
    const stateDir = scratchDirectory();
    const run = await runExample('license-node-cli', [], { LICENSE_STATE_DIR: stateDir, DEVICE_SECRET: 'ab'.repeat(16) });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Run again with your license key');
    expect(existsSync(join(stateDir, 'license.bin'))).toBe(false);
  }, 60_000);

  it('does not run on a tier without the feature', async () => {
    const license = await issueClientLicense(bench, { ...terms, tier: null });
    const run = await runExample('license-node-cli', [license.key], { LICENSE_STATE_DIR: scratchDirectory(), DEVICE_SECRET: 'cd'.repeat(16) });
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('export-pdf: not in your plan');
  }, 60_000);
});

describe('examples/license-feature-gate.ts', () => {
  it('redraws the menu on every state change and frees its seat on the way out', async () => {
    const license = await issueClientLicense(bench, { ...terms, seats: 1 });
    const run = await runExample('license-feature-gate', [], { LICENSE_KEY: license.key });
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'state: unlicensed -> activating',
      'menu: [ ] Edit  [ ] Export to PDF  [ ] Cloud sync',
      'state: activating -> active',
      'menu: [x] Edit  [x] Export to PDF  [ ] Cloud sync',
      'tier studio, features: export-pdf',
      'export: report.pdf written',
      'state: active -> unlicensed (deactivated)',
      'menu: [ ] Edit  [ ] Export to PDF  [ ] Cloud sync',
    ]);
    // One seat: the second run activates only because the first deactivated.
    const again = await runExample('license-feature-gate', [], { LICENSE_KEY: license.key });
    expect(again, again.stderr).toMatchObject({ code: 0 });
  }, 120_000);
});

describe('examples/license-electron/main.ts', () => {
  const config = () => ({ baseUrl: bench.url, productId: bench.productId, pinnedRoots: bench.admin.server.context.pinnedRoots.map((root) => hexEncode(root)) });

  it('activates over IPC, pushes every change to the windows, restarts from the keychain-sealed file, and shows a dialog on a kill order', async () => {
    const license = await issueClientLicense(bench, terms);
    const userData = scratchDirectory();
    const electron = fakeElectron(userData);
    await startLicensing(electron, config());
    expect(await electron.invoke(channels.get)).toEqual({ state: 'unlicensed', tier: null, features: [] });
    expect(await electron.invoke(channels.activate, '')).toMatchObject({ state: 'unlicensed', error: 'Enter a license key.' });
    const refused = (await electron.invoke(channels.activate, 'TG-NOT-A-KEY')) as LicenseSnapshot & { error?: string };
    expect(refused).toMatchObject({ state: 'unlicensed', error: expect.any(String) });
    const activated = { state: 'active', tier: 'studio', features: ['export-pdf'] };
    expect(await electron.invoke(channels.activate, license.key)).toEqual(activated);
    expect(electron.sent.at(-1)).toEqual([channels.changed, activated]);
    // The key file is sealed by the (fake) keychain; the license file is encrypted under it.
    expect(readFileSync(join(userData, 'license.key')).subarray(0, 7).toString()).toBe('sealed:');
    expect(readFileSync(join(userData, 'license.bin')).includes(Buffer.from(bench.productId))).toBe(false);
    electron.quit();

    // The next start, with the server gone: the stored license is due, the check fails, grace holds.
    const restarted = fakeElectron(userData);
    await startLicensing(restarted, { ...config(), baseUrl: unreachableUrl });
    await vi.waitFor(() => expect(restarted.sent.at(-1)?.[1]).toMatchObject({ state: 'grace' }), { timeout: 10_000 });
    expect(await restarted.invoke(channels.get)).toEqual({ ...activated, state: 'grace' });
    restarted.quit();

    // Back online, the vendor removes this computer: the next check brings a kill order and a dialog.
    const online = fakeElectron(userData);
    await startLicensing(online, config());
    expect(await online.invoke(channels.check)).toEqual(activated);
    const machines = await bench.admin.call('GET', `/licenses/${license.licenseId}/machines`);
    const machineId = (machines.body as { machines: { machine_id: string }[] }).machines[0]!.machine_id;
    expect((await bench.admin.call('POST', `/machines/${machineId}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() })).status).toBe(200);
    expect(await online.invoke(channels.check)).toEqual({ state: 'revoked', tier: null, features: [] });
    // The server's own words for the user (its kill order's message) are what the dialog says.
    expect(online.dialogs).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/revoked|removed/) })]);
    expect(online.sent.at(-1)).toEqual([channels.changed, { state: 'revoked', tier: null, features: [] }]);
    expect(existsSync(join(userData, 'license.bin'))).toBe(false);
    online.quit();
  }, 120_000);

  it('keeps the license in memory where the OS has no keychain, and deactivates over IPC', async () => {
    const license = await issueClientLicense(bench, { ...terms, seats: 1 });
    const userData = scratchDirectory();
    const electron = fakeElectron(userData, { keychain: false });
    await startLicensing(electron, config());
    expect(await electron.invoke(channels.activate, license.key)).toMatchObject({ state: 'active' });
    expect(existsSync(join(userData, 'license.bin'))).toBe(false);
    expect(await electron.invoke(channels.deactivate)).toEqual({ state: 'unlicensed', tier: null, features: [] });
    // The seat is free again.
    const other = fakeElectron(scratchDirectory(), { keychain: false });
    await startLicensing(other, config());
    expect(await other.invoke(channels.activate, license.key)).toMatchObject({ state: 'active' });
    electron.quit();
    other.quit();
  }, 60_000);
});
