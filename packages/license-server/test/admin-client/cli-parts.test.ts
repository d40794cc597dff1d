import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '@tollgate/admin-client';
import { AdminNetworkError } from '../../../admin-client/src/errors';
import { refuseTokenFlag, splitCommandLine, UsageError } from '../../../admin-client/src/cli/arguments';
import { resolveConnection } from '../../../admin-client/src/cli/connection';
import { renderTable } from '../../../admin-client/src/cli/output';
import { createProgress } from '../../../admin-client/src/cli/progress';
import { runAdminCli } from '../../../admin-client/src/cli/run-cli';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';

describe('tollgate-admin parts', () => {
  it('finds the command words around global options and their values', () => {
    expect(splitCommandLine(['--url', 'http://x', '--json', 'licenses', 'get', 'abc'])).toEqual({ group: 'licenses', action: 'get', rest: ['--url', 'http://x', '--json', 'abc'] });
    expect(splitCommandLine(['--token-file', 'licenses', 'audit', 'verify'])).toMatchObject({ group: 'audit', action: 'verify' });
    expect(splitCommandLine(['--help'])).toEqual({ group: undefined, action: undefined, rest: ['--help'] });
  });

  it('refuses --token in both spellings but not --token-file, nor a value after --', () => {
    expect(() => refuseTokenFlag(['epochs', 'list', '--token', 'x'])).toThrow(UsageError);
    expect(() => refuseTokenFlag(['--token=x', 'epochs', 'list'])).toThrow(/shell history/);
    expect(() => refuseTokenFlag(['epochs', 'list', '--token-file', 'f'])).not.toThrow();
    expect(() => refuseTokenFlag(['epochs', 'list', '--', '--token'])).not.toThrow();
  });

  it('aligns table columns and neutralises control characters from server data', () => {
    const table = renderTable([{ id: 'a', name: 'x\u001b[31mred' }, { id: 'bbbb', name: null }], [
      { heading: 'ID', cell: (row) => row['id'] },
      { heading: 'NAME', cell: (row) => row['name'] },
    ]);
    expect(table).toBe('ID    NAME\na     x [31mred\nbbbb  -\n');
  });

  it('throttles progress lines and never repeats the final one', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = createProgress({ stderr: (text) => lines.push(text) }, 'rows exported', () => clock);
    progress.update(1);
    progress.update(2);
    clock = 1000;
    progress.update(3);
    progress.finish(3);
    progress.finish(4);
    expect(lines).toEqual(['tollgate-admin: rows exported 1\n', 'tollgate-admin: rows exported 3\n', 'tollgate-admin: rows exported 4\n']);
  });

  describe('connection', () => {
    const work = mkdtempSync(join(tmpdir(), 'tollgate-admin-parts-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    const file = (name: string, text: string) => {
      const path = join(work, name);
      writeFileSync(path, text);
      chmodSync(path, 0o600);
      return path;
    };
    const warnings: string[] = [];
    const resolve = (values: Record<string, string>, env: Record<string, string> = {}) => resolveConnection(values, env, (text) => warnings.push(text));

    it('takes the file over the environment, strips one trailing newline (LF or CRLF), refuses other whitespace', () => {
      expect(resolve({ url: 'http://x', 'token-file': file('lf', 'tok_a\n') }, { TOLLGATE_ADMIN_TOKEN: 'env' }).token).toBe('tok_a');
      expect(resolve({ url: 'http://x', 'token-file': file('crlf', 'tok_b\r\n') }).token).toBe('tok_b');
      expect(() => resolve({ url: 'http://x', 'token-file': file('two', 'tok\nother\n') })).toThrow(/only the token/);
      expect(() => resolve({ url: 'http://x', 'token-file': file('empty', '\n') })).toThrow(/empty/);
      expect(resolve({}, { TOLLGATE_ADMIN_URL: 'https://y', TOLLGATE_ADMIN_TOKEN: 'env' })).toEqual({ baseUrl: 'https://y', token: 'env' });
      expect(warnings).toEqual([]);
    });

    it('warns about a token file others can read, and refuses URLs carrying credentials or other schemes', () => {
      const open = file('open', 'tok\n');
      chmodSync(open, 0o644);
      expect(resolve({ url: 'http://x', 'token-file': open }).token).toBe('tok');
      expect(warnings.join('')).toContain('chmod 600');
      expect(() => resolve({ url: 'http://user:pw@x' }, { TOLLGATE_ADMIN_TOKEN: 't' })).toThrow(/credentials/);
      expect(() => resolve({ url: 'file:///etc/passwd' }, { TOLLGATE_ADMIN_TOKEN: 't' })).toThrow(/http/);
    });
  });
});

const engine = serverEngines[0]!;

describe(`tollgate-admin licenses issue when a later batch fails [${engine.name}]`, () => {
  let bench: AdminHarness;
  beforeAll(async () => {
    bench = await openAdminHarness(engine);
  });
  afterAll(() => bench?.close());

  it('still prints the keys already issued, then the error with its exit status', async () => {
    const policyId = await seedPolicy(bench, bench.vendorA);
    let stdout = '';
    let stderr = '';
    const status = await runAdminCli(['licenses', 'issue', '--policy', policyId, '--count', '150', '--json'], {
      env: { TOLLGATE_ADMIN_URL: bench.url, TOLLGATE_ADMIN_TOKEN: bench.vendorA.token },
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      // Fault injection: the second batch's connection fails.
      createClient: (options) => {
        const client = createAdminClient(options);
        let calls = 0;
        const issue = client.licenses.issue;
        return {
          ...client,
          licenses: {
            ...client.licenses,
            issue: (input, callOptions) => {
              calls += 1;
              return calls === 1 ? issue(input, callOptions) : Promise.reject(new AdminNetworkError('connection reset'));
            },
          },
        };
      },
    });
    expect(status).toBe(3);
    const document = JSON.parse(stdout);
    // One JSON document: the keys and the error together.
    expect(document).toMatchObject({ requested: 150, complete: false, error: { code: 'network_error', message: 'connection reset' } });
    expect(document.licenses).toHaveLength(100);
    expect(new Set(document.licenses.map((license: { key: string }) => license.key)).size).toBe(100);
    expect(stderr).toContain('issued 100 of 150 licenses before the error');
    expect(stderr).toMatch(/network_error: connection reset\n$/);
    const stored = await bench.sql.query<{ count: string }>('SELECT count(*)::text AS count FROM license_licenses WHERE policy_id = $1', [policyId]);
    expect(stored.rows[0]?.count).toBe('100');
  });
});
