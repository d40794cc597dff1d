import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvRecord } from '@tollgate/core/config';
import { adminScopes } from '@tollgate/core/license';
import { runLicenseCli, type RunningLicenseServer } from '@tollgate/license-server';
import { openServerSandbox, serverEngines, type ServerSandbox } from '../helpers';

interface CliRun {
  status: number | undefined;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: EnvRecord): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const status = await runLicenseCli(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { status, stdout, stderr };
}

/** Parses the single JSON line a `--json` command must print, and nothing else. */
function jsonLine(run: CliRun): Record<string, unknown> {
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

const tokenPattern = /^tgla_[A-Za-z0-9_-]{43}$/;
const idPattern = /^[0-9a-f]{32}$/;

async function adminGet(server: RunningLicenseServer, path: string, token: string): Promise<{ status: number; body: { ok: boolean; error?: { code: string } }; challenge: string | null }> {
  const response = await fetch(new URL(`/v1/admin${path}`, server.url), { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as { ok: boolean; error?: { code: string } }, challenge: response.headers.get('www-authenticate') };
}

for (const engine of serverEngines) {
  describe(`tollgate-license operator commands [${engine.name}]`, () => {
    let sandbox: ServerSandbox;
    let env: EnvRecord;
    let boot: { vendorId: string; productId: string; tokenId: string; token: string };
    const minted: Record<string, { tokenId: string; token: string }> = {};

    beforeAll(async () => {
      sandbox = await openServerSandbox(engine);
      env = sandbox.env;
    });
    afterAll(() => sandbox?.cleanup());

    it('bootstrap --json prints exactly one JSON line with the ids and the token', async () => {
      const run = await cli(['bootstrap', '--vendor', 'Acme', '--product', 'Acme Editor', '--json'], env);
      const printed = jsonLine(run);
      expect(Object.keys(printed)).toEqual(['vendorId', 'productId', 'tokenId', 'token']);
      expect(printed).toEqual({ vendorId: expect.stringMatching(idPattern), productId: expect.stringMatching(idPattern), tokenId: expect.stringMatching(idPattern), token: expect.stringMatching(tokenPattern) });
      boot = printed as typeof boot;
    });

    it('bootstrap prints the ids, the token once and a curl line for a route the token may call', async () => {
      const run = await cli(['bootstrap', '--vendor', 'Globex', '--product', 'Globex CAD'], env);
      expect(run.status, run.stderr).toBe(0);
      const token = /^ {2}(tgla_\S+)$/m.exec(run.stdout)?.[1] as string;
      expect(token).toMatch(tokenPattern);
      expect(run.stdout.split(token)).toHaveLength(2); // shown exactly once
      const productId = /^Product +([0-9a-f]{32}) +"Globex CAD"$/m.exec(run.stdout)?.[1];
      expect(run.stdout).toMatch(/^Vendor +[0-9a-f]{32} +"Globex"$/m);
      expect(run.stdout).toMatch(/^Token +[0-9a-f]{32} +\(all scopes, no expiry\)$/m);
      // LICENSE_PORT=0 (any free port) in the sandbox: the hint falls back to the default port.
      expect(run.stdout).toContain(`curl -sS -H "Authorization: Bearer $TOLLGATE_ADMIN_TOKEN" 'http://127.0.0.1:4030/v1/admin/products/${productId}/alert-webhook'`);
      const lockNote = 'stop the server before the next tollgate-license command';
      if (engine.name === 'pglite') expect(run.stdout).toContain(lockNote);
      else expect(run.stdout).not.toContain(lockNote);
    });

    it('tokens create mints a scoped, expiring, labelled token and hints at a route its scopes allow', async () => {
      const started = Date.now();
      const json = jsonLine(await cli(['tokens', 'create', '--vendor', boot.vendorId, '--scopes', 'accounts:rw,audit:r', '--expires-in', '90d', '--label', 'ci', '--json'], env));
      expect(json).toEqual({ tokenId: expect.stringMatching(idPattern), vendorId: boot.vendorId, scopes: ['accounts:rw', 'audit:r'], label: 'ci', expiresAt: expect.any(String), token: expect.stringMatching(tokenPattern) });
      const expiresIn = Date.parse(json['expiresAt'] as string) - started;
      expect(expiresIn).toBeGreaterThan(90 * 86_400_000 - 60_000);
      expect(expiresIn).toBeLessThan(90 * 86_400_000 + 60_000);
      minted['audit'] = json as { tokenId: string; token: string };

      const human = await cli(['tokens', 'create', '--vendor', boot.vendorId, '--scopes', 'products:rw', '--expires-in', '12h'], env);
      expect(human.status, human.stderr).toBe(0);
      expect(human.stdout).toMatch(/^Scopes +products:rw$/m);
      expect(human.stdout).toMatch(/^Expires +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
      expect(human.stdout).toContain("/v1/admin/products/<product-id>/alert-webhook'");
      minted['products'] = { tokenId: /^Token +([0-9a-f]{32})/m.exec(human.stdout)?.[1] as string, token: /^ {2}(tgla_\S+)$/m.exec(human.stdout)?.[1] as string };
      expect(minted['products'].token).toMatch(tokenPattern);

      const revokeOnly = await cli(['tokens', 'create', '--vendor', boot.vendorId, '--scopes', 'revoke', '--expires-in', '30m', '--label', 'to revoke'], env);
      expect(revokeOnly.stdout).toContain("curl -sS -X POST -H \"Authorization: Bearer $TOLLGATE_ADMIN_TOKEN\" 'http://127.0.0.1:4030/v1/admin/licenses/<license-id>/revoke'");
      minted['revoked'] = { tokenId: /^Token +([0-9a-f]{32})/m.exec(revokeOnly.stdout)?.[1] as string, token: /^ {2}(tgla_\S+)$/m.exec(revokeOnly.stdout)?.[1] as string };
    });

    it('tokens list shows ids, vendors, labels, scopes and dates, never a token or a hash', async () => {
      const human = await cli(['tokens', 'list'], env);
      expect(human.status, human.stderr).toBe(0);
      const [header, ...rows] = human.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^ID +VENDOR +LABEL +SCOPES +CREATED +EXPIRES +LAST USED +REVOKED$/);
      expect(rows).toHaveLength(5); // two bootstraps and three minted tokens
      expect(human.stdout).toMatch(new RegExp(`^${minted['audit']?.tokenId} +${boot.vendorId} +ci +accounts:rw,audit:r +\\S+Z +\\S+Z +- +-$`, 'm'));
      expect(human.stdout).toMatch(new RegExp(`^${boot.tokenId} +${boot.vendorId} +bootstrap +all +`, 'm'));

      const json = jsonLine(await cli(['tokens', 'list', '--vendor', boot.vendorId, '--json'], env));
      const tokens = json['tokens'] as Record<string, unknown>[];
      expect(tokens.map((token) => token['tokenId'])).toEqual([boot.tokenId, minted['audit']?.tokenId, minted['products']?.tokenId, minted['revoked']?.tokenId]);
      for (const token of tokens) expect(Object.keys(token).sort()).toEqual(['createdAt', 'expiresAt', 'label', 'lastUsedAt', 'revokedAt', 'scopes', 'tokenId', 'vendorId']);
      expect((tokens[0] as { scopes: string[] }).scopes).toEqual([...adminScopes]);

      for (const output of [human.stdout, JSON.stringify(json)]) {
        for (const { token } of [boot, ...Object.values(minted)]) expect(output).not.toContain(token.slice(5));
        expect(output).not.toMatch(/[0-9a-f]{64}/); // no keyed hash either
      }
    });

    it('tokens revoke revokes once and reports an already revoked token; products create adds a product', async () => {
      const tokenId = minted['revoked']?.tokenId as string;
      const first = await cli(['tokens', 'revoke', tokenId], env);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(new RegExp(`^Revoked token ${tokenId} \\(vendor ${boot.vendorId}\\) at \\S+Z\\.\n$`));
      const again = jsonLine(await cli(['tokens', 'revoke', tokenId, '--json'], env));
      expect(again).toEqual({ tokenId, vendorId: boot.vendorId, revokedAt: expect.any(String), alreadyRevoked: true });
      const listed = jsonLine(await cli(['tokens', 'list', '--vendor', boot.vendorId, '--json'], env));
      expect((listed['tokens'] as { tokenId: string; revokedAt: string | null }[]).find((token) => token.tokenId === tokenId)?.revokedAt).toBe(again['revokedAt']);

      const product = jsonLine(await cli(['products', 'create', '--vendor', boot.vendorId, '--name', 'Acme Viewer', '--json'], env));
      expect(product).toEqual({ vendorId: boot.vendorId, productId: expect.stringMatching(idPattern), name: 'Acme Viewer' });
    });

    it.each([
      [['tokens', 'create', '--vendor', 'a'.repeat(32), '--scopes', 'licenses:rw,frobnicate'], /Unknown scope "frobnicate"\. Valid scopes: products:rw, catalog:rw, .*sign:manifest\./],
      [['tokens', 'create', '--scopes', 'revoke'], /--vendor is required/],
      [['tokens', 'create', '--vendor', 'Acme', '--scopes', 'revoke'], /--vendor must be a vendor id/],
      [['tokens', 'create', '--vendor', 'a'.repeat(32), '--scopes', 'revoke', '--expires-in', '90'], /--expires-in is a whole number/],
      [['tokens', 'create', '--vendor', 'a'.repeat(32), '--scopes', 'revoke', '--expires-in', '3651d'], /at most 3650d/],
      [['tokens', 'create', '--vendor', 'a'.repeat(32), '--scopes', 'revoke', '--colour', 'red'], /Unknown option '--colour'/],
      [['tokens', 'list', 'extra'], /Unexpected argument/],
      [['tokens', 'revoke'], /needs the token id/],
      [['tokens', 'revoke', 'abc'], /32 lowercase hex digits/],
      [['tokens', 'frobnicate'], /Unknown command: tokens frobnicate/],
      [['bootstrap', '--vendor', 'Acme'], /--product is required/],
      [['bootstrap', '--vendor', '', '--product', 'P'], /--vendor must be 1 to 200 characters/],
      [['products', 'create', '--vendor', 'a'.repeat(32)], /--name is required/],
    ])('refuses %j with exit 2 and the usage', async (args, message) => {
      const run = await cli(args, env);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain('Usage: tollgate-license');
      expect(run.stderr).toContain('tokens create --vendor <id> --scopes <scope,...>');
    });

    it('refuses an unknown vendor or token with exit 1 and one line', async () => {
      for (const args of [
        ['tokens', 'create', '--vendor', 'a'.repeat(32), '--scopes', 'revoke'],
        ['products', 'create', '--vendor', 'a'.repeat(32), '--name', 'X'],
        ['tokens', 'revoke', 'b'.repeat(32)],
      ]) {
        const run = await cli(args, env);
        expect(run.status, args.join(' ')).toBe(1);
        expect(run.stderr).toMatch(/^tollgate-license: No (vendor|token) [0-9a-f]{32}\.\n$/);
      }
    });

    it('the tokens work against a server on the same database, and a revoked one is refused with 401', async () => {
      const server = await sandbox.start();
      const alert = `/products/${boot.productId}/alert-webhook`;
      expect((await adminGet(server, alert, boot.token)).status).toBe(200);
      expect((await adminGet(server, alert, minted['products']?.token as string)).status).toBe(200);
      const scoped = await adminGet(server, alert, minted['audit']?.token as string);
      expect(scoped.status).toBe(403);
      expect(scoped.body.error?.code).toBe('insufficient_scope');
      expect((await adminGet(server, '/audit', minted['audit']?.token as string)).status).toBe(200);
      const revoked = await adminGet(server, alert, minted['revoked']?.token as string);
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual({ ok: false, error: { code: 'invalid_token', message: expect.any(String) } });
      expect(revoked.challenge).toBe('Bearer realm="tollgate-license"');
    });
  });
}

// The real command, spawned the way npm links it: node_modules/.bin/tollgate-license is a symlink to
// the package's bin shim, which runs the sources of a checkout without a build.
describe('the tollgate-license bin shim', () => {
  const shim = fileURLToPath(new URL('../../bin/tollgate-license.mjs', import.meta.url));
  const linkDir = mkdtempSync(join(tmpdir(), 'tollgate-bin-'));
  let sandbox: ServerSandbox;
  beforeAll(async () => {
    symlinkSync(shim, join(linkDir, 'tollgate-license'));
    sandbox = await openServerSandbox(serverEngines[0] as (typeof serverEngines)[number]);
  });
  afterAll(async () => {
    await sandbox?.cleanup();
    rmSync(linkDir, { recursive: true, force: true });
  });

  it('bootstraps through the symlinked bin with one JSON line, and the token opens the Admin API', async () => {
    const { DATABASE_URL: _database, LICENSE_DATABASE_URL: _licenseDatabase, LICENSE_MASTER_KEY: _masterKey, ...inherited } = process.env;
    const run = spawnSync(join(linkDir, 'tollgate-license'), ['bootstrap', '--vendor', 'Shim', '--product', 'Shim App', '--json'], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...inherited, ...sandbox.env },
      timeout: 60_000,
    });
    const printed = jsonLine({ status: run.status ?? undefined, stdout: run.stdout, stderr: run.stderr });
    expect(printed['token']).toMatch(tokenPattern);
    const server = await sandbox.start();
    const answer = await adminGet(server, `/products/${printed['productId'] as string}/alert-webhook`, printed['token'] as string);
    expect(answer.status).toBe(200);
  });

  it('prints the usage with the operator commands, and exit 2 for an unknown command', () => {
    const help = spawnSync(process.execPath, [shim, 'help'], { encoding: 'utf8', timeout: 60_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('bootstrap --vendor <name> --product <name> [--json]');
    expect(help.stdout).toContain('tokens revoke <token-id>');
    const unknown = spawnSync(process.execPath, [shim, 'tokens', 'mint'], { encoding: 'utf8', timeout: 60_000 });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^tollgate-license: Unknown command: tokens mint\n\nUsage: tollgate-license/);
  });

  it('runs dist/bin/<name>.js where there are no sources (the published package), and says so when there is neither', () => {
    const published = join(linkDir, 'node_modules', '@tollgate', 'license-server');
    mkdirSync(join(published, 'bin'), { recursive: true });
    copyFileSync(shim, join(published, 'bin', 'tollgate-license.mjs'));
    const missing = spawnSync(process.execPath, [join(published, 'bin', 'tollgate-license.mjs'), 'help'], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^tollgate-license: found neither the sources nor a build in .*; run `npm run build`\.\n$/);
    mkdirSync(join(published, 'dist', 'bin'), { recursive: true });
    writeFileSync(join(published, 'dist', 'bin', 'tollgate-license.js'), "process.stdout.write('built ' + JSON.stringify(process.argv.slice(2)));\n");
    const built = spawnSync(process.execPath, [join(published, 'bin', 'tollgate-license.mjs'), 'tokens', 'list'], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toBe('built ["tokens","list"]');
  });
});
