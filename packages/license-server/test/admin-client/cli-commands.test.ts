import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedMachines, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { openCliRunner, type CliRunner } from './cli-runner';

// The CLI is a thin layer over the client: one engine is enough (the client and server suites cover both).
const engine = serverEngines[0]!;

// Each run is a fresh Node process; on a loaded machine one takes seconds, so the tests get room.
describe(`tollgate-admin commands against a real license server [${engine.name}]`, { timeout: 120_000 }, () => {
  let bench: AdminHarness;
  let cli: CliRunner;
  let policyId: string;

  beforeAll(async () => {
    bench = await openAdminHarness(engine);
    policyId = await seedPolicy(bench, bench.vendorA);
    cli = await openCliRunner('commands', { TOLLGATE_ADMIN_URL: bench.url, TOLLGATE_ADMIN_TOKEN: bench.vendorA.token });
  });
  afterAll(async () => {
    cli?.dispose();
    await bench?.close();
  });

  it('issues --count 3 licenses with their keys, reports progress on stderr, and the server holds exactly them', async () => {
    const issued = await cli.run(['licenses', 'issue', '--policy', policyId, '--count', '3', '--json']);
    expect(issued.status, issued.stderr).toBe(0);
    const document = JSON.parse(issued.stdout);
    expect(document.complete).toBe(true);
    expect(document.licenses).toHaveLength(3);
    for (const license of document.licenses) expect(license.key).toEqual(expect.any(String));
    expect(issued.stderr).toContain('licenses issued 3/3');

    const listed = await bench.call('GET', '/licenses', { query: { product_id: bench.vendorA.productId, limit: '200' } });
    const ids = document.licenses.map((license: { license_id: string }) => license.license_id);
    expect(listed.body.licenses.map((license: { license_id: string }) => license.license_id)).toEqual(expect.arrayContaining(ids));
    // The human form prints a table with the keys and a warning that they are shown once.
    const human = await cli.run(['licenses', 'issue', '--policy', policyId]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^LICENSE_ID\s+KEY\s+EXPIRES_AT\n[0-9a-f]{32}\s+\S+/);
    expect(human.stderr).toContain('shown only this once');
  });

  it('lists licenses as a table, as one JSON document, and cut at --limit with has_more', async () => {
    await issueLicenses(bench, policyId, { count: 3 });
    const table = await cli.run(['licenses', 'list', '--product', bench.vendorA.productId]);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^LICENSE_ID\s+STATUS\s+KEY_HINT/);
    const cut = await cli.run(['--json', 'licenses', 'list', '--product', bench.vendorA.productId, '--limit', '2']);
    expect(cut.status, cut.stderr).toBe(0);
    const document = JSON.parse(cut.stdout);
    expect(document.licenses).toHaveLength(2);
    expect(document.has_more).toBe(true);
    expect(cut.stderr).toContain('raise --limit');
    const one = await cli.run(['licenses', 'get', document.licenses[0].license_id, '--json']);
    expect(JSON.parse(one.stdout).license.license_id).toBe(document.licenses[0].license_id);
  });

  it('revokes a license only with --confirm: the dry run exits 4 and changes nothing', async () => {
    const [license] = await issueLicenses(bench, policyId);
    const licenseId = license!.license_id;
    await seedMachines(bench, bench.vendorA, licenseId, 2);

    const dryRun = await cli.run(['licenses', 'revoke', licenseId, '--json']);
    expect(dryRun.status, dryRun.stderr).toBe(4);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ dry_run: true, license_id: licenseId, machines_affected: 2, already_revoked: false });
    expect(dryRun.stderr).toContain('--confirm');
    expect((await bench.call('GET', `/licenses/${licenseId}`)).body.license.status).toBe('active');

    const confirmed = await cli.run(['licenses', 'revoke', licenseId, '--confirm']);
    expect(confirmed.status, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toMatch(new RegExp(`^revoked license ${licenseId} \\(revocation seq \\d+, 2 machines revoked\\)`));
    expect((await bench.call('GET', `/licenses/${licenseId}`)).body.license.status).toBe('revoked');

    const again = await cli.run(['licenses', 'revoke', licenseId, '--confirm', '--json']);
    expect(again.status).toBe(1);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: 'already_revoked', status: 409 });
    expect(again.stderr).toMatch(/^tollgate-admin: error already_revoked \(HTTP 409\): /);
  });

  it('revokes a machine only with --confirm', async () => {
    const [license] = await issueLicenses(bench, policyId);
    const [machineId] = await seedMachines(bench, bench.vendorA, license!.license_id, 1);
    expect((await cli.run(['machines', 'revoke', machineId!])).status).toBe(4);
    const listed = JSON.parse((await cli.run(['machines', 'list', '--license', license!.license_id, '--json'])).stdout);
    expect(listed.machines.map((machine: { status: string }) => machine.status)).toEqual(['active']);
    const confirmed = await cli.run(['machines', 'revoke', machineId!, '--confirm', '--json']);
    expect(confirmed.status, confirmed.stderr).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({ dry_run: false, machine: { machine_id: machineId, status: 'revoked' } });
  });

  it('verifies the audit chain with progress on stderr, and lists its events', async () => {
    const verified = await cli.run(['audit', 'verify', '--json']);
    expect(verified.status, verified.stderr).toBe(0);
    const document = JSON.parse(verified.stdout);
    expect(document).toMatchObject({ verified: true, first_broken: null });
    expect(document.event_count).toBeGreaterThanOrEqual(5);
    expect(verified.stderr).toContain(`audit events verified ${document.event_count}`);
    const events = await cli.run(['audit', 'list', '--target-type', 'license', '--limit', '3', '--json']);
    expect(events.status, events.stderr).toBe(0);
    expect(JSON.parse(events.stdout).events).toHaveLength(3);
  });

  it('gives every read command a JSON document on stdout', async () => {
    const [license] = await issueLicenses(bench, policyId);
    const commands: [string[], string][] = [
      [['epochs', 'list'], 'epochs'],
      [['policies', 'list', '--product', bench.vendorA.productId], 'policies'],
      [['releases', 'list'], 'releases'],
      [['machines', 'list'], 'machines'],
      [['dsr', 'export', '--license', license!.license_id], 'records'],
    ];
    for (const [args, key] of commands) {
      const result = await cli.run([...args, '--json']);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout), args.join(' ')).toHaveProperty(key);
    }
    const policies = JSON.parse((await cli.run(['policies', 'list', '--json'])).stdout);
    expect(policies.policies.map((entry: { policy: { id: string } }) => entry.policy.id)).toContain(policyId);
  });

  it('streams an analytics export to stdout (CSV header first) with the row count on stderr', async () => {
    const csv = await cli.run(['analytics', 'export', '--from', '2025-03-01', '--to', '2025-03-07', '--format', 'csv']);
    expect(csv.status, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/^event_id,kind,occurred_at/);
    expect(csv.stderr).toMatch(/rows exported \d+\n$/);
    const refused = await cli.run(['analytics', 'export', '--from', '2025-03-07', '--to', '2025-03-01']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/error \w+ \(HTTP 4\d\d\)/);
  });
});
