/**
 * `@tollgate/client-sdk/node`: the parts of the license client that need Node (or Electron's main
 * process): the encrypted file store.
 *
 * @packageDocumentation
 */
export { createFileStorage, deriveStorageKey, LicenseStorageError, type FileStorageOptions } from './file-storage';
export { verifyEd25519Node as nodeEd25519Verifier } from '@tollgate/core/node';
