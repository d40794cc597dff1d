import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { openCliRunner, type CliRunner } from './cli-runner';

const engine = serverEngines[0]!;
const unknownId = '0'.repeat(32);

/** Runs one statement past the audit tables' append-only triggers, as someone with raw database access could. */
async function tamper(bench: AdminHarness, statement: string, params: unknown[]): Promise<void> {
  await bench.sql.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query(statement, params as never[]);
  });
}

describe(`tollgate-admin tokens, usage and exit statuses [${engine.name}]`, { timeout: 120_000 }, () => {
  let bench: AdminHarness;
  let cli: CliRunner;
  const work = mkdtempSync(join(tmpdir(), 'tollgate-admin-cli-'));

  beforeAll(async () => {
    bench = await openAdminHarness(engine);
    cli = await openCliRunner('errors', { TOLLGATE_ADMIN_URL: bench.url, TOLLGATE_ADMIN_TOKEN: bench.vendorA.token });
  });
  afterAll(async () => {
    // No run, whatever it printed, ever showed a token.
    const printed = cli?.transcript.join('\n') ?? '';
    expect(printed).not.toContain(bench.vendorA.token);
    expect(printed).not.toContain(bench.vendorB.token);
    cli?.dispose();
    rmSync(work, { recursive: true, force: true });
    await bench?.close();
  });

  it('refuses a --token flag with exit 2, says why, and sends nothing', async () => {
    for (const args of [['--token', bench.vendorA.token, 'epochs', 'list'], ['epochs', 'list', `--token=${bench.vendorA.token}`]]) {
      const result = await cli.run(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('shell history');
      expect(result.stdout).toBe('');
    }
  });

  it('exits 2 without a token or a URL, and for unknown commands, options and bad values', async () => {
    const noToken = await cli.run(['epochs', 'list'], { TOLLGATE_ADMIN_TOKEN: undefined });
    expect(noToken.status).toBe(2);
    expect(noToken.stderr).toContain('TOLLGATE_ADMIN_TOKEN');
    const noUrl = await cli.run(['epochs', 'list', '--json'], { TOLLGATE_ADMIN_URL: undefined });
    expect(noUrl.status).toBe(2);
    expect(JSON.parse(noUrl.stdout).error.code).toBe('usage_error');
    const cases = [
      ['licenses', 'frobnicate'],
      ['licenses', 'list'],
      ['licenses', 'issue', '--policy', 'p', '--count', '0'],
      ['licenses', 'get'],
      ['licenses', 'get', 'a', 'b'],
      ['machines', 'list', '--bogus'],
      ['epochs', 'revoke', unknownId, '--confirm-epoch-id', '1'.repeat(32), '--confirm'],
      ['dsr', 'export', '--machine', 'a', '--license', 'b'],
      ['analytics', 'export', '--from', 'yesterday', '--to', '2025-01-01'],
    ];
    for (const args of cases) {
      const result = await cli.run(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/Run 'tollgate-admin .*--help' for usage/);
    }
  });

  it('reads the token from --token-file, ignoring a trailing newline', async () => {
    const file = join(work, 'token');
    writeFileSync(file, `${bench.vendorB.token}\n`);
    chmodSync(file, 0o600);
    const [license] = await issueLicenses(bench, await seedPolicy(bench, bench.vendorB), {}, bench.vendorB.token);
    // The file wins over the environment (vendor A's token, which cannot see vendor B's license).
    const result = await cli.run(['licenses', 'get', license!.license_id, '--token-file', file, '--json']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).license.license_id).toBe(license!.license_id);
    expect(result.stderr).toBe('');
    const missing = await cli.run(['epochs', 'list', '--token-file', join(work, 'absent')]);
    expect(missing.status).toBe(2);
  });

  it('exits 1 with the server error code on an API error', async () => {
    const human = await cli.run(['licenses', 'get', unknownId]);
    expect(human.status).toBe(1);
    expect(human.stderr).toMatch(/^tollgate-admin: error not_found \(HTTP 404\): .+\(request \S+\)\n$/);
    const machine = await cli.run(['licenses', 'get', unknownId, '--json']);
    expect(machine.status).toBe(1);
    expect(JSON.parse(machine.stdout).error).toMatchObject({ code: 'not_found', status: 404 });
    const wrongToken = await cli.run(['epochs', 'list'], { TOLLGATE_ADMIN_TOKEN: `${bench.vendorA.token.slice(0, -4)}AAAA` });
    expect(wrongToken.status).toBe(1);
    expect(wrongToken.stderr).toMatch(/error \w+ \(HTTP 401\)/);
  });

  it('exits 3 when the server cannot be reached', async () => {
    const result = await cli.run(['epochs', 'list'], { TOLLGATE_ADMIN_URL: 'http://127.0.0.1:1' });
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/^tollgate-admin: network_error: /);
  });

  it('exits 5 when audit verify finds the chain broken', async () => {
    // Vendor B's own chain: vendor A's (used by the other tests) stays intact.
    await issueLicenses(bench, await seedPolicy(bench, bench.vendorB), { count: 2 }, bench.vendorB.token);
    const env = { TOLLGATE_ADMIN_TOKEN: bench.vendorB.token };
    expect((await cli.run(['audit', 'verify'], env)).status).toBe(0);
    await tamper(bench, "UPDATE license_audit_events SET action = 'license.forged' WHERE vendor_id = $1 AND seq = 1", [bench.vendorB.vendorId]);
    const broken = await cli.run(['audit', 'verify', '--json'], env);
    expect(broken.status).toBe(5);
    expect(JSON.parse(broken.stdout)).toMatchObject({ verified: false, first_broken: 1 });
  });

  it('prints a command’s help with exit 0, through the bin file itself', async () => {
    const { spawn } = await import('node:child_process');
    const help = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['packages/admin-client/bin/tollgate-admin.mjs', 'licenses', 'revoke', '--help'], { cwd: join(import.meta.dirname, '../../../..') });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.on('close', (status) => resolve({ status, stdout }));
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tollgate-admin licenses revoke <license-id>/);
    expect(help.stdout).toContain('4  dry run');
  });
});
