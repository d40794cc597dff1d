import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { LicenseStorage } from '../life-cycle/storage';

/** Options of {@link createFileStorage}. */
export interface FileStorageOptions {
  /** The file holding the record (its directory is created, mode 0700, when missing). */
  readonly path: string;
  /**
   * 32 bytes the record is encrypted under (XChaCha20-Poly1305). Supply it from a place the file is not
   * (the OS keychain, a hardware-bound secret) or derive it with {@link deriveStorageKey}; a key stored
   * next to the file protects against nothing.
   */
  readonly key: Uint8Array;
}

/** Why a stored record could not be read: it was changed, truncated, or encrypted under another key. */
export class LicenseStorageError extends Error {
  override readonly name = 'LicenseStorageError';
}

// "TGLS" + format version 1: the header is authenticated with the ciphertext.
const header = new Uint8Array([0x54, 0x47, 0x4c, 0x53, 0x01]);
const nonceLength = 24;

/**
 * Derives the file store's key from a device secret the app already has (a keychain entry, a TPM-bound
 * value): HKDF-SHA-256 with a label per app, so two apps on one device never share a key.
 *
 * @param deviceSecret - At least 16 bytes of secret, stable on this device.
 * @param appId - The app's identifier (e.g. the product id).
 * @returns 32 key bytes.
 * @example
 * ```ts
 * import { createFileStorage, deriveStorageKey } from '@tollgate/client-sdk/node';
 * const storage = createFileStorage({ path: join(appDataDir, 'license.bin'), key: deriveStorageKey(secretFromKeychain, 'acme-editor') });
 * ```
 */
export function deriveStorageKey(deviceSecret: Uint8Array, appId: string): Uint8Array {
  if (deviceSecret.length < 16) throw new TypeError('deviceSecret must hold at least 16 bytes');
  return hkdf(sha256, deviceSecret, new TextEncoder().encode('tollgate/client-sdk/file-storage/v1'), new TextEncoder().encode(appId), 32);
}

/**
 * A {@link LicenseStorage} in one encrypted file: XChaCha20-Poly1305 under `key` with a fresh nonce per
 * save; written to a temporary file (mode 0600, flushed to disk) and renamed over the old one, so a crash
 * mid-save leaves the previous record whole. A failed save removes its temporary file; the directory is
 * flushed after the rename and after `clear`, where the platform allows, so neither is undone by a
 * power loss. A record changed on disk, or read with another key, fails
 * `load` with {@link LicenseStorageError} (the client then starts unlicensed and reports it).
 *
 * @param options - The file and the key.
 * @returns The storage.
 * @example
 * ```ts
 * import { createLicenseClient } from '@tollgate/client-sdk';
 * import { createFileStorage } from '@tollgate/client-sdk/node';
 * const client = createLicenseClient({ ...options, storage: createFileStorage({ path: '/home/ada/.acme/license.bin', key }) });
 * ```
 */
export function createFileStorage(options: FileStorageOptions): LicenseStorage {
  if (options.key.length !== 32) throw new TypeError('the file storage key must be 32 bytes');
  const key = options.key.slice();
  const { path } = options;
  return {
    async load() {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await readFile(path));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      return openRecord(key, bytes);
    },
    async save(record) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const nonce = new Uint8Array(randomBytes(nonceLength));
      const sealed = xchacha20poly1305(key, nonce, header).encrypt(record);
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      // Opened outside the clean-up: a failed exclusive create made no file of ours to remove.
      const file = await open(temporary, 'wx', 0o600);
      try {
        try {
          await file.writeFile(concat(header, nonce, sealed));
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(temporary, path);
      } catch (error) {
        // A failed write, flush or rename (a full disk) must not leave a stray temporary file behind:
        // the failure path of validation saves on every retry.
        await rm(temporary, { force: true }).catch(() => undefined);
        throw error;
      }
      await syncDirectory(dirname(path));
    },
    async clear() {
      await rm(path, { force: true });
      await syncDirectory(dirname(path));
    },
  };
}

// Platforms that cannot fsync a directory say so with one of these (Windows: EPERM/EISDIR; some file
// systems: EINVAL); the rename itself has happened, only its durability is the platform's business there.
const directorySyncUnsupported = new Set(['EINVAL', 'EISDIR', 'EPERM', 'EBADF', 'ENOTSUP']);

/** Flushes a directory's entries, so a rename or removal survives a power loss (not only the file's bytes). */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(directory, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // ENOENT: `clear` of a store whose directory was never created has nothing to flush.
    if (code === 'ENOENT' || directorySyncUnsupported.has(code)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!directorySyncUnsupported.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

function openRecord(key: Uint8Array, bytes: Uint8Array): Uint8Array {
  const corrupt = () => new LicenseStorageError('The stored license record is damaged or was written under another key.');
  if (bytes.length < header.length + nonceLength + 16 || !header.every((byte, index) => bytes[index] === byte)) throw corrupt();
  const nonce = bytes.subarray(header.length, header.length + nonceLength);
  try {
    return xchacha20poly1305(key, nonce, header).decrypt(bytes.subarray(header.length + nonceLength));
  } catch {
    throw corrupt();
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
