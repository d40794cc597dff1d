import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomId } from '@tollgate/core/crypto';
import { CeremonyError } from './ceremony-error';

/** A held lock; `release()` is idempotent. */
export interface EmbeddedDatabaseLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner a lock file names: a live pid, a dead pid, or nothing readable (treated as in use). */
type LockOwner = { state: 'alive' | 'dead'; pid: number } | { state: 'unreadable' } | { state: 'gone' };

function readOwner(path: string): LockOwner {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'gone' };
    throw error;
  }
  if (!/^[1-9][0-9]{0,9}\n?$/.test(text)) return { state: 'unreadable' };
  const pid = Number(text.trim());
  return { state: isAlive(pid) ? 'alive' : 'dead', pid };
}

function inUse(path: string, owner: LockOwner): CeremonyError {
  const holder = owner.state === 'alive' ? `process ${owner.pid}` : 'another process';
  const hint = owner.state === 'unreadable' ? ` If no server or CLI is running, delete ${path}.` : '';
  return new CeremonyError('database_in_use', `The embedded license database is in use by ${holder}: stop the server first, or use a PostgreSQL server (DATABASE_URL).${hint}`);
}

/**
 * Creates `path` holding our pid in one atomic step: the pid is written to a private temporary file
 * first and then hard-linked to `path`, which fails with `EEXIST` when the lock exists. So the lock
 * file never exists empty or half-written, and a reader always sees a complete pid.
 */
function linkLockFile(path: string): boolean {
  const temporary = `${path}.${process.pid}.${randomId()}.tmp`;
  writeFileSync(temporary, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Removes a lock left by a dead process without ever removing a live one: the file is first renamed
 * away (atomic, so of two processes clearing the same stale lock only one gets it), then re-read. If
 * it names a live process after all (another process took the lock between our read and the rename),
 * it is linked back in place.
 */
function clearStaleLock(path: string, stalePid: number): void {
  const aside = `${path}.${process.pid}.${randomId()}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const owner = readOwner(aside);
    if (!(owner.state === 'dead' && owner.pid === stalePid)) {
      try {
        linkSync(aside, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      throw inUse(path, owner);
    }
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Takes the lock file of the embedded (PGlite) database. PGlite runs inside one process and does not
 * guard its data directory against a second one, so the server and the CLI's database commands take
 * this lock first: `tollgate-license epoch load` refuses to run while the server holds the database.
 *
 * The lock file appears atomically with the holder's pid in it. A lock whose pid is no longer running
 * is taken over; a lock whose content is not a pid (empty, or written by something else) counts as in
 * use, since guessing wrong would open the database twice.
 *
 * @param path - The lock file (`.tollgate/license/db.lock`).
 * @returns The held lock.
 * @throws {@link CeremonyError} `database_in_use`.
 *
 * @example
 * ```ts
 * import { acquireEmbeddedDatabaseLock } from '@tollgate/license-server';
 * const lock = acquireEmbeddedDatabaseLock('.tollgate/license/db.lock');
 * try { await work(); } finally { lock.release(); }
 * ```
 */
export function acquireEmbeddedDatabaseLock(path: string): EmbeddedDatabaseLock {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (linkLockFile(path)) {
      let held = true;
      return {
        release() {
          if (held) rmSync(path, { force: true });
          held = false;
        },
      };
    }
    const owner = readOwner(path);
    if (owner.state === 'alive' || owner.state === 'unreadable') throw inUse(path, owner);
    if (owner.state === 'dead') clearStaleLock(path, owner.pid);
  }
  throw new CeremonyError('database_in_use', `Could not take ${path}: other processes keep taking it.`);
}
