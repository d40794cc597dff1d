// The file store when the file system fails (F15): a save whose write or flush fails (a full disk)
// leaves no temporary file behind and the previous record whole, and the directory is flushed after a
// rename and a removal, except where the platform refuses to fsync a directory.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileStorage, deriveStorageKey } from '@tollgate/client-sdk/node';

/** What the next file operations should do: the test sets it, the wrapped `open` obeys. */
const faults: { write?: string; sync?: string; directorySync?: string; directorySyncs: string[] } = { directorySyncs: [] };

function errnoError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code} (injected)`), { code });
}

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof actual.open>): Promise<FileHandle> => {
    const handle = await actual.open(...args);
    const path = String(args[0]);
    const isTemporary = path.endsWith('.tmp');
    const isDirectory = (await handle.stat()).isDirectory();
    return new Proxy(handle, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property === 'writeFile' && isTemporary && faults.write !== undefined) return () => Promise.reject(errnoError(faults.write!));
        if (property === 'sync' && isTemporary && faults.sync !== undefined) return () => Promise.reject(errnoError(faults.sync!));
        if (property === 'sync' && isDirectory) {
          return async () => {
            if (faults.directorySync !== undefined) throw errnoError(faults.directorySync);
            await target.sync();
            faults.directorySyncs.push(path);
          };
        }
        return typeof value === 'function' ? (value as (...rest: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  return { ...actual, open, default: { ...actual, open } };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tollgate-file-storage-failures-'));
  faults.directorySyncs = [];
});
afterEach(async () => {
  delete faults.write;
  delete faults.sync;
  delete faults.directorySync;
  await rm(dir, { recursive: true, force: true });
});

const key = deriveStorageKey(new Uint8Array(32).fill(7), 'acme-editor');
const first = new TextEncoder().encode('{"format":1,"record":"first"}');
const second = new TextEncoder().encode('{"format":1,"record":"second"}');

describe('createFileStorage when the disk fails', () => {
  it('removes the temporary file when the write fails, and keeps the previous record', async () => {
    const path = join(dir, 'license.bin');
    const storage = createFileStorage({ path, key });
    await storage.save(first);
    faults.write = 'ENOSPC';
    await expect(storage.save(second)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readdir(dir)).toEqual(['license.bin']);
    expect(await storage.load()).toEqual(first);
  });

  it('removes the temporary file when the flush fails', async () => {
    const path = join(dir, 'license.bin');
    const storage = createFileStorage({ path, key });
    faults.sync = 'EIO';
    for (let attempt = 0; attempt < 3; attempt += 1) await expect(storage.save(first)).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(dir)).toEqual([]);
    expect(await storage.load()).toBeUndefined();
  });

  it('flushes the directory after a save and after a clear', async () => {
    const path = join(dir, 'license.bin');
    const storage = createFileStorage({ path, key });
    await storage.save(first);
    expect(faults.directorySyncs).toEqual([dir]);
    await storage.clear();
    expect(faults.directorySyncs).toEqual([dir, dir]);
    // A clear of a store whose directory never existed has nothing to flush, and does not fail.
    await createFileStorage({ path: join(dir, 'never', 'license.bin'), key }).clear();
  });

  it('goes on where the platform refuses to fsync a directory, but reports a real flush failure', async () => {
    const path = join(dir, 'license.bin');
    const storage = createFileStorage({ path, key });
    for (const code of ['EINVAL', 'EISDIR', 'EPERM']) {
      faults.directorySync = code;
      await storage.save(first);
      expect(await storage.load()).toEqual(first);
      await storage.clear();
    }
    faults.directorySync = 'EIO';
    await expect(storage.save(second)).rejects.toMatchObject({ code: 'EIO' });
  });
});
