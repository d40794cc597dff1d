import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
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

/**
 * Takes the lock file of the embedded (PGlite) database. PGlite runs inside one process and does not
 * guard its data directory against a second one, so the server and the CLI's database commands take
 * this lock first: `tollgate-license epoch load` refuses to run while the server holds the database.
 * A lock left by a process that no longer exists is taken over.
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
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const descriptor = openSync(path, 'wx', 0o600);
      writeSync(descriptor, String(process.pid));
      closeSync(descriptor);
      let held = true;
      return {
        release() {
          if (held) rmSync(path, { force: true });
          held = false;
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readFileSync(path, 'utf8').trim());
    if (Number.isSafeInteger(owner) && owner > 0 && isAlive(owner)) {
      throw new CeremonyError('database_in_use', `The embedded license database is in use by process ${owner}: stop the server first, or use a PostgreSQL server (DATABASE_URL).`);
    }
    rmSync(path, { force: true });
  }
  throw new CeremonyError('database_in_use', `Could not take ${path}.`);
}
