// The encrypted file store of `@tollgate/client-sdk/node`: round trip, mode 0600, a record changed on
// disk or read under another key is refused, and an interrupted save leaves the previous record.
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileStorage, deriveStorageKey, LicenseStorageError } from '@tollgate/client-sdk/node';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tollgate-file-storage-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const key = deriveStorageKey(new Uint8Array(32).fill(7), 'acme-editor');
const record = new TextEncoder().encode('{"format":1,"secret":"device keys"}');

describe('createFileStorage', () => {
  it('round-trips a record, encrypted at rest, in a file only its owner can read', async () => {
    const path = join(dir, 'nested', 'license.bin');
    const storage = createFileStorage({ path, key });
    expect(await storage.load()).toBeUndefined();
    await storage.save(record);
    expect(await storage.load()).toEqual(record);
    const onDisk = new Uint8Array(await readFile(path));
    expect(Buffer.from(onDisk).includes(Buffer.from('device keys'))).toBe(false);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // A fresh nonce per save: the same record never encrypts to the same bytes.
    await storage.save(record);
    expect(new Uint8Array(await readFile(path))).not.toEqual(onDisk);
    await storage.clear();
    expect(await storage.load()).toBeUndefined();
    await storage.clear();
  });

  it('refuses a record changed on disk, truncated, or written under another key', async () => {
    const path = join(dir, 'license.bin');
    await createFileStorage({ path, key }).save(record);
    const original = new Uint8Array(await readFile(path));
    for (const index of [0, 4, 10, original.length - 1]) {
      const changed = original.slice();
      changed[index]! ^= 0x01;
      await writeFile(path, changed);
      await expect(createFileStorage({ path, key }).load(), `byte ${index}`).rejects.toBeInstanceOf(LicenseStorageError);
    }
    await writeFile(path, original.subarray(0, 20));
    await expect(createFileStorage({ path, key }).load()).rejects.toBeInstanceOf(LicenseStorageError);
    await writeFile(path, original);
    await expect(createFileStorage({ path, key: deriveStorageKey(new Uint8Array(32).fill(7), 'other-app') }).load()).rejects.toBeInstanceOf(LicenseStorageError);
    expect(await createFileStorage({ path, key }).load()).toEqual(record);
  });

  it('leaves the previous record whole when a save is interrupted, and cleans up after a failed rename', async () => {
    const path = join(dir, 'license.bin');
    const storage = createFileStorage({ path, key });
    await storage.save(record);
    // A crash after writing the temporary file, before the rename: the stray file changes nothing.
    await writeFile(`${path}.deadbeefcafe.tmp`, new Uint8Array([1, 2, 3]));
    expect(await storage.load()).toEqual(record);
    // A rename that cannot happen (the target is a directory): the save fails and no temporary file stays.
    const blocked = join(dir, 'blocked');
    await import('node:fs/promises').then((fs) => fs.mkdir(join(blocked, 'inner'), { recursive: true }));
    await expect(createFileStorage({ path: blocked, key }).save(record)).rejects.toThrow();
    expect((await readdir(dir)).filter((name) => name.startsWith('blocked.'))).toEqual([]);
  });

  it('refuses keys that are not 32 bytes and device secrets under 16 bytes', () => {
    expect(() => createFileStorage({ path: join(dir, 'x'), key: new Uint8Array(31) })).toThrow(TypeError);
    expect(() => deriveStorageKey(new Uint8Array(15), 'app')).toThrow(TypeError);
    expect(deriveStorageKey(new Uint8Array(16).fill(1), 'a')).not.toEqual(deriveStorageKey(new Uint8Array(16).fill(1), 'b'));
  });
});
