/**
 * Where a license client keeps its state between runs: one opaque record (the stored credential, device
 * keys, last ticket, keyset, revocation state and clock mark), written whole or not at all. The SDK
 * ships two: {@link createMemoryStorage} here and an encrypted file store in `@tollgate/client-sdk/node`;
 * an app can put the record in the OS keychain (see the README's recipe) by implementing these three
 * methods.
 *
 * Contract: `load` returns exactly the bytes of the last completed `save` (or `undefined` after `clear`
 * or before any save); a `save` interrupted by a crash leaves the previous record, never a mix; `clear`
 * removes the record (a kill order wipes the device's keys this way). The record holds private keys:
 * keep it where only this user can read it.
 */
export interface LicenseStorage {
  load(): Promise<Uint8Array | undefined>;
  save(record: Uint8Array): Promise<void>;
  clear(): Promise<void>;
}

/**
 * A storage that lives only as long as the process: tests, kiosks, and apps that re-activate at every
 * start. Copies on the way in and out, so a caller cannot change the stored record by accident.
 *
 * @returns The storage.
 * @example
 * ```ts
 * import { createLicenseClient, createMemoryStorage } from '@tollgate/client-sdk';
 * const client = createLicenseClient({ ...options, storage: createMemoryStorage() });
 * ```
 */
export function createMemoryStorage(): LicenseStorage {
  let stored: Uint8Array | undefined;
  return {
    load: () => Promise.resolve(stored === undefined ? undefined : stored.slice()),
    save: (record) => {
      stored = record.slice();
      return Promise.resolve();
    },
    clear: () => {
      stored = undefined;
      return Promise.resolve();
    },
  };
}
