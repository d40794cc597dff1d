import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../../..');

describe('contract artifacts', () => {
  it('are what compiling the checked-in sources produces (fresh and deterministic)', async () => {
    const run = promisify(execFile);
    const { stderr } = await run(process.execPath, ['scripts/compile-contracts.mjs', '--check'], { cwd: root });
    expect(stderr).toBe('');
  }, 60_000);
});
