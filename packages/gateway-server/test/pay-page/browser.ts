// Headless Chromium for the pay page tests, and an injected EIP-1193 test wallet whose keys stay in
// Node: the page sees `window.ethereum`, every request crosses to Node through `page.exposeFunction`,
// and a viem local account signs the typed data the page asks for.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { LocalAccount, TypedDataDefinition } from 'viem';

/** Where Debian's chromium lives (the real binary first; `/usr/bin/chromium` is its wrapper script). */
const chromiumPaths = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'];

/** Flags for a container without a sandbox, a GPU or a network to phone home to. */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-zygote',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
];

/**
 * The Chromium to test with: `TOLLGATE_CHROMIUM` when set (only it: pointing it at nothing simulates a
 * machine without a browser), else Debian's; `undefined` when none exists.
 */
export function findChromium(): string | undefined {
  const chosen = process.env['TOLLGATE_CHROMIUM'];
  const candidates = chosen === undefined || chosen === '' ? chromiumPaths : [chosen];
  return candidates.find((path) => existsSync(path));
}

/** True when the environment says this is CI (`CI` set to anything but empty, `0` or `false`). */
export function runningInCi(): boolean {
  const value = process.env['CI'];
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Launches headless Chromium from `path`. */
export function launchChromium(path: string): Promise<Browser> {
  return chromium.launch({ executablePath: path, args: chromiumFlags, headless: true });
}

/** The directory screenshots go to (git-ignored), created on first use. */
export function artifactPath(name: string): string {
  const directory = fileURLToPath(new URL('../../test-artifacts/pay-page/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  return `${directory}${name}`;
}

/** How the test wallet behaves; mutable during a test. */
export interface TestWalletBehaviour {
  /** The chain the wallet is on (`eth_chainId`). */
  chainId: number;
  /** Chains `wallet_switchEthereumChain` can switch to; others answer 4902 (unknown chain). */
  knownChains: number[];
  /** Answer `wallet_switchEthereumChain` with 4001 (the user declined). */
  rejectSwitch?: boolean;
  /** Answer `eth_signTypedData_v4` with 4001 (the user declined). */
  rejectSignature?: boolean;
}

/** The installed wallet: what the page asked, and its behaviour. */
export interface TestWallet {
  readonly behaviour: TestWalletBehaviour;
  /** Every request the page made, in order. */
  readonly requests: { method: string; params: unknown[] }[];
  /** The typed data of each signature request, parsed. */
  readonly signed: TypedDataDefinition[];
}

type WalletAnswer = { result: unknown; event?: { name: string; value: unknown } } | { error: { code: number; message: string } };

const rejected = (message: string): WalletAnswer => ({ error: { code: 4001, message } });

/** viem wants bigints for uint fields; the JSON of eth_signTypedData_v4 carries strings or numbers. */
function withBigInts(typed: TypedDataDefinition & { types: Record<string, { name: string; type: string }[]> }): TypedDataDefinition {
  const fields = typed.types[typed.primaryType as string] ?? [];
  const message = { ...(typed.message as Record<string, unknown>) };
  for (const field of fields) if (/^uint\d*$/.test(field.type)) message[field.name] = BigInt(message[field.name] as string);
  const { EIP712Domain: _domain, ...types } = typed.types;
  return { ...typed, types, message } as TypedDataDefinition;
}

/**
 * Installs `window.ethereum` in every document `page` loads, backed by `account`. Like a real wallet it
 * refuses to sign typed data whose domain chain id is not its current chain (MetaMask does), and emits
 * `chainChanged` after a switch.
 */
export async function installTestWallet(page: Page, account: LocalAccount, behaviour: TestWalletBehaviour): Promise<TestWallet> {
  const wallet: TestWallet = { behaviour, requests: [], signed: [] };
  async function answer(method: string, params: unknown[]): Promise<WalletAnswer> {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [account.address] };
      case 'eth_chainId':
        return { result: `0x${behaviour.chainId.toString(16)}` };
      case 'wallet_switchEthereumChain': {
        if (behaviour.rejectSwitch) return rejected('User rejected the request.');
        const chainId = Number.parseInt(String((params[0] as { chainId?: string } | undefined)?.chainId), 16);
        if (!behaviour.knownChains.includes(chainId)) return { error: { code: 4902, message: `Unrecognized chain ID ${chainId}.` } };
        behaviour.chainId = chainId;
        return { result: null, event: { name: 'chainChanged', value: `0x${chainId.toString(16)}` } };
      }
      case 'eth_signTypedData_v4': {
        const [address, json] = params as [string, string];
        if (address.toLowerCase() !== account.address.toLowerCase()) return { error: { code: 4100, message: 'Unknown account.' } };
        const typed = JSON.parse(json) as TypedDataDefinition & { types: Record<string, { name: string; type: string }[]>; domain: { chainId?: number } };
        wallet.signed.push(typed);
        if (Number(typed.domain.chainId) !== behaviour.chainId) {
          return { error: { code: -32603, message: `Provided chainId "${typed.domain.chainId}" must match the active chainId "${behaviour.chainId}"` } };
        }
        if (behaviour.rejectSignature) return rejected('User rejected the request.');
        return { result: await account.signTypedData(withBigInts(typed)) };
      }
      default:
        return { error: { code: 4200, message: `Unsupported method ${method}.` } };
    }
  }
  await page.exposeFunction('__tollgateTestWallet', async (request: string) => {
    const { method, params } = JSON.parse(request) as { method: string; params: unknown[] };
    wallet.requests.push({ method, params });
    return JSON.stringify(await answer(method, params));
  });
  await page.addInitScript(() => {
    const listeners = new Map<string, ((value: unknown) => void)[]>();
    const bridge = (window as unknown as { __tollgateTestWallet: (request: string) => Promise<string> }).__tollgateTestWallet;
    (window as unknown as { ethereum: unknown }).ethereum = {
      async request(args: { method: string; params?: unknown[] }) {
        const reply = JSON.parse(await bridge(JSON.stringify({ method: args.method, params: args.params ?? [] })));
        if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
        if (reply.event) for (const listener of listeners.get(reply.event.name) ?? []) listener(reply.event.value);
        return reply.result;
      },
      on(event: string, listener: (value: unknown) => void) {
        listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      },
      removeListener(event: string, listener: (value: unknown) => void) {
        listeners.set(event, (listeners.get(event) ?? []).filter((known) => known !== listener));
      },
    };
  });
  return wallet;
}

/** Records CSP violations and uncaught errors of every document `page` loads. */
export async function watchPageProblems(page: Page): Promise<{ errors: string[]; violations: () => Promise<string[]> }> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return { errors, violations: () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations) };
}
