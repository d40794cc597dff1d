import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { hexDecode, hexEncode } from '@tollgate/core';
import { ed25519PublicKey, generateEd25519KeyPair, randomBytes } from '@tollgate/core/crypto';
import { rootKeyIdHex } from '@tollgate/core/license';
import { CeremonyError } from './ceremony-error';

/** A root key pair as the key file holds it. */
export interface RootKey {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
  /** 16 hex digits: the `kid` of the certificates this root signs. */
  readonly keyIdHex: string;
}

const rootKeyFileType = 'tollgate-license-root-key';

/**
 * Writes `text` to a new file readable by its owner only (mode 0600), refusing to replace an existing
 * file: the exclusive create (`wx`) makes the check and the creation one step.
 *
 * @param path - The file to create (its directory is created if missing).
 * @param text - The contents.
 * @throws {@link CeremonyError} `file_exists`.
 *
 * @example
 * ```ts
 * import { writeOwnerOnlyFile } from '@tollgate/license-server';
 * writeOwnerOnlyFile('certificate.hex', `${certificateHex}\n`);
 * ```
 */
export function writeOwnerOnlyFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  let descriptor: number;
  try {
    descriptor = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new CeremonyError('file_exists', `${path} already exists: key files are never overwritten.`, { cause: error });
    throw error;
  }
  try {
    writeSync(descriptor, text);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Reads a secret file, refusing one that group or others may read (as ssh does with private keys).
 *
 * @param path - The file.
 * @returns Its text.
 * @throws {@link CeremonyError} `insecure_permissions`.
 */
export function readOwnerOnlyFile(path: string): string {
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    throw new CeremonyError('insecure_permissions', `${path} is readable by group or others: run chmod 600 ${path}.`);
  }
  return readFileSync(path, 'utf8');
}

/**
 * Step 1 of the key ceremony (`tollgate-license root create --out <file>`): generates a root Ed25519
 * key pair into a new owner-only file. Keep the file offline; pin the public key in every client.
 *
 * @param path - Where to write the key file.
 * @returns The new root key.
 * @throws {@link CeremonyError} `file_exists`.
 *
 * @example
 * ```ts
 * import { createRootKeyFile } from '@tollgate/license-server';
 * const root = createRootKeyFile('/media/offline/root.key');
 * ```
 */
export function createRootKeyFile(path: string): RootKey {
  const { privateKey, publicKey } = generateEd25519KeyPair();
  const keyIdHex = rootKeyIdHex(publicKey);
  const text = `${JSON.stringify({ type: rootKeyFileType, version: 1, private_key: hexEncode(privateKey), public_key: hexEncode(publicKey), key_id: keyIdHex }, null, 2)}\n`;
  writeOwnerOnlyFile(path, text);
  return { privateKey, publicKey, keyIdHex };
}

/**
 * Reads a root key file written by {@link createRootKeyFile}, checking its permissions and that its
 * public key matches its private key.
 *
 * @param path - The key file.
 * @returns The root key.
 * @throws {@link CeremonyError} `insecure_permissions` or `invalid_key_file`.
 *
 * @example
 * ```ts
 * import { readRootKeyFile } from '@tollgate/license-server';
 * const { publicKey } = readRootKeyFile('root.key');
 * ```
 */
export function readRootKeyFile(path: string): RootKey {
  const text = readOwnerOnlyFile(path);
  try {
    const parsed = JSON.parse(text) as { type?: unknown; version?: unknown; private_key?: unknown; public_key?: unknown };
    if (parsed.type !== rootKeyFileType || parsed.version !== 1 || typeof parsed.private_key !== 'string' || typeof parsed.public_key !== 'string') throw new Error('fields');
    const privateKey = hexDecode(parsed.private_key);
    const publicKey = ed25519PublicKey(privateKey);
    if (hexEncode(publicKey) !== parsed.public_key) throw new Error('public key mismatch');
    return { privateKey, publicKey, keyIdHex: rootKeyIdHex(publicKey) };
  } catch (error) {
    throw new CeremonyError('invalid_key_file', `${path} is not a root key file written by tollgate-license root create.`, { cause: error });
  }
}

/**
 * Reads the dev root key file, creating it on first use.
 *
 * @param path - The key file.
 * @returns The key and whether it was created now.
 */
export function readOrCreateRootKeyFile(path: string): { key: RootKey; created: boolean } {
  try {
    return { key: createRootKeyFile(path), created: true };
  } catch (error) {
    if (error instanceof CeremonyError && error.code === 'file_exists') return { key: readRootKeyFile(path), created: false };
    throw error;
  }
}

/**
 * Reads the dev master key file (64 hex digits), creating it with 32 random bytes on first use.
 *
 * @param path - The key file.
 * @returns The master key and whether it was created now.
 * @throws {@link CeremonyError} `insecure_permissions` or `invalid_key_file`.
 */
export function readOrCreateMasterKeyFile(path: string): { key: Uint8Array; created: boolean } {
  try {
    const key = randomBytes(32);
    writeOwnerOnlyFile(path, `${hexEncode(key)}\n`);
    return { key, created: true };
  } catch (error) {
    if (!(error instanceof CeremonyError && error.code === 'file_exists')) throw error;
  }
  const text = readOwnerOnlyFile(path).trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new CeremonyError('invalid_key_file', `${path} must hold 64 lower-case hex digits.`);
  return { key: hexDecode(text), created: false };
}
