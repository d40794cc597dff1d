// A fake of the few Electron main-process APIs examples/license-electron/main.ts touches, recording what
// it does: IPC handlers to invoke as a renderer would, messages sent to the windows, dialogs shown, and
// a `safeStorage` that seals with a visible prefix (or reports no keychain, as a bare Linux session does).
import type { ElectronMain } from '../../../../examples/license-electron/main';

/** The fake, with what it recorded and the renderer's side of IPC. */
export interface FakeElectron extends ElectronMain {
  /** Calls an `ipcMain.handle` handler as `ipcRenderer.invoke` would. */
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  /** Every `webContents.send` to the one window, in order: `[channel, ...args]`. */
  readonly sent: unknown[][];
  /** Every dialog shown. */
  readonly dialogs: { type: string; title: string; message: string }[];
  /** Emits `before-quit`. */
  quit(): void;
}

export function fakeElectron(userData: string, options: { keychain?: boolean } = {}): FakeElectron {
  const handlers = new Map<string, (event: unknown, ...args: never[]) => unknown>();
  const quitListeners: (() => void)[] = [];
  const sent: unknown[][] = [];
  const dialogs: FakeElectron['dialogs'] = [];
  const window = { webContents: { send: (channel: string, ...args: unknown[]) => void sent.push([channel, ...args]) } };
  return {
    app: {
      getPath: () => userData,
      getVersion: () => '2.3.0',
      on: (_event, listener) => quitListeners.push(listener),
    },
    ipcMain: {
      handle: (channel, listener) => {
        if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        handlers.set(channel, listener);
      },
    },
    dialog: {
      showMessageBox: (box) => {
        dialogs.push(box);
        return Promise.resolve({ response: 0 });
      },
    },
    safeStorage: {
      isEncryptionAvailable: () => options.keychain ?? true,
      encryptString: (text) => Buffer.from(`sealed:${Buffer.from(text).toString('base64')}`),
      decryptString: (sealed) => {
        const text = sealed.toString();
        if (!text.startsWith('sealed:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
        return Buffer.from(text.slice('sealed:'.length), 'base64').toString();
      },
    },
    BrowserWindow: { getAllWindows: () => [window] },
    invoke: async (channel, ...args) => {
      const handler = handlers.get(channel);
      if (handler === undefined) throw new Error(`No handler registered for '${channel}'`);
      return handler({ sender: window.webContents }, ...(args as never[]));
    },
    sent,
    dialogs,
    quit: () => quitListeners.forEach((listener) => listener()),
  };
}
