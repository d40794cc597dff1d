// The license client in an Electron app's main process: created when the app is ready, its state and
// entitlements handed to the renderer over IPC (the renderer never holds keys or talks to the license
// server), a dialog when a kill order arrives, and the stored license sealed with `safeStorage` (the OS
// keychain: Keychain on macOS, DPAPI on Windows, libsecret/kwallet on Linux). See README.md here.
//
// `startLicensing` takes the Electron module as a parameter (`startLicensing(electron, config)` in the
// app) so this file has no import of 'electron' and its logic runs under plain Node in the tests.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { arch, hostname, platform, userInfo } from 'node:os';
import { join } from 'node:path';
import { createLicenseClient, createMemoryStorage, type KillOrder, type LicenseClient, type LicenseState, type LicenseStorage } from '@tollgate/client-sdk';
import { createFileStorage } from '@tollgate/client-sdk/node';

/** The few main-process APIs used here; the real `electron` module provides them all. */
export interface ElectronMain {
  readonly app: { getPath(name: 'userData'): string; getVersion(): string; on(event: 'before-quit', listener: () => void): unknown };
  readonly ipcMain: { handle(channel: string, listener: (event: unknown, ...args: never[]) => unknown): void };
  readonly dialog: { showMessageBox(options: { type: 'warning'; title: string; message: string; buttons: string[] }): Promise<unknown> };
  readonly safeStorage: { isEncryptionAvailable(): boolean; encryptString(plainText: string): Buffer; decryptString(encrypted: Buffer): string };
  readonly BrowserWindow: { getAllWindows(): { readonly webContents: { send(channel: string, ...args: unknown[]): void } }[] };
}

/** What the app compiles in. */
export interface LicensingConfig {
  readonly baseUrl: string;
  readonly productId: string;
  /** Hex root public keys from the vendor's server (`TRUST_PINNED_ROOTS`). */
  readonly pinnedRoots: readonly string[];
}

/** What the renderer sees: plain data, no keys, no client. */
export interface LicenseSnapshot {
  readonly state: LicenseState;
  readonly tier: string | null;
  readonly features: readonly string[];
}

/** The IPC channels (the preload script exposes them; see README.md). */
export const channels = { get: 'license:get', activate: 'license:activate', check: 'license:check', deactivate: 'license:deactivate', changed: 'license:changed' } as const;

/** What a kill order says to the user when the vendor wrote no message. */
const killMessages: Record<number, string> = {
  1: 'Your license was revoked.',
  2: 'This computer was removed from your license.',
  4: 'Your license was revoked.',
  5: 'Your license was refunded.',
};

/**
 * The storage: an encrypted file in userData whose key is sealed with `safeStorage`, so the file is
 * useless without this user's OS login. Where the OS offers no keychain (a bare Linux session), the
 * license lives in memory and the app activates again at its next start.
 */
function keychainFileStorage(electron: ElectronMain): LicenseStorage {
  if (!electron.safeStorage.isEncryptionAvailable()) return createMemoryStorage();
  const directory = electron.app.getPath('userData');
  const keyFile = join(directory, 'license.key');
  let key: Buffer | undefined;
  if (existsSync(keyFile)) {
    try {
      key = Buffer.from(electron.safeStorage.decryptString(readFileSync(keyFile)), 'hex');
    } catch {
      // Sealed under another login (a copied profile): a new key; the old record no longer opens.
    }
  }
  if (key?.length !== 32) {
    key = randomBytes(32);
    mkdirSync(directory, { recursive: true });
    writeFileSync(`${keyFile}.tmp`, electron.safeStorage.encryptString(key.toString('hex')), { mode: 0o600 });
    renameSync(`${keyFile}.tmp`, keyFile);
  }
  return createFileStorage({ path: join(directory, 'license.bin'), key });
}

/**
 * Creates and starts the license client, and wires it to IPC and dialogs. Call once, when the app is ready.
 *
 * @param electron - The `electron` module (or a fake of {@link ElectronMain} in tests).
 * @param config - Server, product and pinned roots.
 * @returns The started client (for the app's own `hasFeature` checks in the main process).
 */
export async function startLicensing(electron: ElectronMain, config: LicensingConfig): Promise<LicenseClient> {
  const license = createLicenseClient({
    ...config,
    storage: keychainFileStorage(electron),
    // Stable for this user on this machine; never sent in the clear (the server keeps a keyed hash).
    fingerprint: () => createHash('sha256').update(`${hostname()}/${userInfo().username}/${electron.app.getPath('userData')}`).digest(),
    clientInfo: { appVersion: electron.app.getVersion(), sdkVersion: '0.1.0', os: platform(), arch: arch() },
  });
  const snapshot = (): LicenseSnapshot => {
    const entitlements = license.entitlements();
    return { state: license.state, tier: entitlements?.tier ?? null, features: entitlements?.features ?? [] };
  };

  // Every window hears every change, so a renderer never polls and never shows a stale gate.
  license.on('state', () => {
    for (const window of electron.BrowserWindow.getAllWindows()) window.webContents.send(channels.changed, snapshot());
  });
  license.on('kill', (order: KillOrder) => {
    const message = order.userMessage ?? killMessages[order.reason] ?? 'This license can no longer be used on this computer.';
    void electron.dialog.showMessageBox({ type: 'warning', title: 'License', message, buttons: ['OK'] });
  });
  license.on('error', (error) => console.warn('[license]', error));

  electron.ipcMain.handle(channels.get, () => snapshot());
  electron.ipcMain.handle(channels.activate, async (_event, licenseKey: string) => {
    if (typeof licenseKey !== 'string' || licenseKey.length === 0) return { ...snapshot(), error: 'Enter a license key.' };
    try {
      await license.activate({ licenseKey });
      return snapshot();
    } catch (error) {
      // The server's message is meant for people ("all 3 seats are in use…"); the renderer shows it.
      return { ...snapshot(), error: error instanceof Error ? error.message : String(error) };
    }
  });
  electron.ipcMain.handle(channels.check, async () => {
    await license.validateNow();
    return snapshot();
  });
  electron.ipcMain.handle(channels.deactivate, async () => {
    await license.deactivate();
    return snapshot();
  });
  electron.app.on('before-quit', () => void license.stop());

  await license.start();
  return license;
}
