import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CeremonyError, acquireEmbeddedDatabaseLock } from '@tollgate/license-server';

/** The pid of a process that has exited (so it is certainly not running). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function refusal(path: string): CeremonyError | undefined {
  try {
    acquireEmbeddedDatabaseLock(path).release();
  } catch (error) {
    if (error instanceof CeremonyError) return error;
    throw error;
  }
  return undefined;
}

describe('acquireEmbeddedDatabaseLock', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-lock-'));
    path = join(dir, 'license', 'db.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the lock file with the holder pid already in it, leaves no temporary file, and releases it', () => {
    const lock = acquireEmbeddedDatabaseLock(path);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`);
    expect(readdirSync(join(dir, 'license'))).toEqual(['db.lock']);
    expect(refusal(path)).toMatchObject({ code: 'database_in_use', message: expect.stringContaining(`process ${process.pid}`) });
    lock.release();
    lock.release();
    expect(readdirSync(join(dir, 'license'))).toEqual([]);
  });

  it('treats an empty or unreadable lock file as in use, never as stale', () => {
    acquireEmbeddedDatabaseLock(path).release();
    for (const content of ['', '   ', 'not a pid', '0', '-5']) {
      writeFileSync(path, content);
      const error = refusal(path);
      expect(error, JSON.stringify(content)).toMatchObject({ code: 'database_in_use' });
      expect(error?.message).toContain(`delete ${path}`);
      expect(readFileSync(path, 'utf8')).toBe(content);
    }
  });

  it('takes over a lock left by a process that has exited', () => {
    acquireEmbeddedDatabaseLock(path).release();
    writeFileSync(path, `${deadPid()}\n`);
    const lock = acquireEmbeddedDatabaseLock(path);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`);
    expect(readdirSync(join(dir, 'license'))).toEqual(['db.lock']);
    lock.release();
  });
});
