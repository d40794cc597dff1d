import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as v from 'valibot';
import type { Address, Hex } from 'viem';
import type { GatewayConfig } from './config';
import { startDevStack, type DevStack } from './devchain/dev-stack';

/** What the running dev stack offers: the gateway's `context.devChain` and the dev file carry it. */
export interface DevChainInfo {
  /** anvil's JSON-RPC endpoint (the `local` network). */
  rpcUrl: string;
  chainId: number;
  /** CAIP-2 id, e.g. `eip155:31337`. */
  network: `eip155:${number}`;
  /** The self-hosted x402 facilitator (`/verify`, `/settle`, `/supported`). */
  facilitatorUrl: string;
  /** The test USDC (EIP-3009, 6 decimals). */
  usdc: Address;
  /** The demo payer: test USDC, no ETH. Its key is a **public dev key**: never send real funds to it. */
  payer: { address: Address; privateKey: Hex };
  /** Where anvil keeps the chain between restarts. */
  statePath: string;
}

/** The dev file: {@link DevChainInfo} plus the gateway's URL, for scripts such as `examples/pay-a-ref.ts`. */
export interface DevStackFile extends DevChainInfo {
  /** Where the gateway listens. */
  gatewayUrl: string;
}

/** The dev stack as the gateway runs it. */
export interface DevMode {
  readonly info: DevChainInfo;
  /** `config` settling through the dev stack: its facilitator, its RPC as `local`, its USDC; order mode on unless set off. */
  apply(config: GatewayConfig): GatewayConfig;
  /** Writes the dev file (atomically) once the gateway listens. */
  publish(gatewayUrl: string): void;
  /** Removes the dev file, then stops the facilitator and anvil (anvil writes its state). Idempotent. */
  stop(): Promise<void>;
}

/** Where {@link startDevMode} logs. */
export interface DevModeLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * Directory of the dev stack: `<dataDir>/devchain/` (anvil's state under `chain/`, and the dev file).
 *
 * @param dataDir - The gateway's data directory.
 * @returns The directory path.
 * @example
 * ```ts
 * import { devChainDir } from '@tollgate/gateway-server';
 * devChainDir('.tollgate'); // '.tollgate/devchain'
 * ```
 */
export function devChainDir(dataDir: string): string {
  return join(dataDir, 'devchain');
}

/**
 * The dev file a gateway in dev mode writes while it runs: `<dataDir>/devchain/dev-stack.json`.
 *
 * @param dataDir - The gateway's data directory.
 * @returns The file path.
 * @example
 * ```ts
 * import { devStackFilePath } from '@tollgate/gateway-server';
 * devStackFilePath('.tollgate'); // '.tollgate/devchain/dev-stack.json'
 * ```
 */
export function devStackFilePath(dataDir: string): string {
  return join(devChainDir(dataDir), 'dev-stack.json');
}

/**
 * Starts the dev stack for a gateway whose configuration asks for it (`config.devChain`), under
 * `<dataDir>/devchain/`, so the chain, the token address and the balances survive restarts. Only ever
 * binds 127.0.0.1.
 *
 * @param config - The gateway configuration.
 * @param options - The logger (URLs and addresses only; the payer key is never logged).
 * @returns The running dev mode, or `undefined` when `config.devChain` is false.
 * @throws Error when anvil is missing or fails to start (the message names the fix).
 * @example
 * ```ts
 * import { loadGatewayConfig, startDevMode } from '@tollgate/gateway-server';
 * const config = loadGatewayConfig(process.env);
 * const dev = await startDevMode(config, { logger: console });
 * const effective = dev ? dev.apply(config) : config;
 * ```
 */
export async function startDevMode(config: Pick<GatewayConfig, 'devChain' | 'dataDir'>, options: { logger: DevModeLogger }): Promise<DevMode | undefined> {
  if (!config.devChain) return undefined;
  let stack: DevStack;
  try {
    stack = await startDevStack({
      dataDir: devChainDir(config.dataDir),
      host: '127.0.0.1',
      onFacilitatorError: (error) => options.logger.error({ err: error }, 'dev facilitator failed'),
      onWarning: (message) => options.logger.warn({}, message),
    });
  } catch (error) {
    throw new Error(`Could not start the local dev chain (set GATEWAY_DEV_CHAIN=0 to run without it): ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const { restore } = stack;
  if (restore.loadedFrom !== undefined) {
    options.logger.info({ loadedFrom: restore.loadedFrom, settlementsChecked: restore.checked }, 'dev chain restored from its last saved state');
  }
  const info: DevChainInfo = {
    rpcUrl: stack.rpcUrl,
    chainId: stack.chainId,
    network: stack.network,
    facilitatorUrl: stack.facilitatorUrl,
    usdc: stack.usdc.address,
    payer: stack.payer,
    statePath: stack.statePath,
  };
  options.logger.info(
    { rpcUrl: info.rpcUrl, facilitatorUrl: info.facilitatorUrl, usdc: info.usdc, payer: info.payer.address },
    'dev chain started (anvil, test USDC, self-hosted facilitator)',
  );
  const filePath = devStackFilePath(config.dataDir);
  let stopping: Promise<void> | undefined;
  return {
    info,
    apply: (gatewayConfig) => ({
      ...gatewayConfig,
      facilitatorUrl: info.facilitatorUrl,
      facilitatorHeaders: {},
      rpcUrls: { ...gatewayConfig.rpcUrls, local: info.rpcUrl },
      localUsdc: info.usdc,
      // `npm start` shows every feature: order mode is on unless GATEWAY_ORDER_MODE=off says otherwise.
      orderMode: gatewayConfig.orderMode ?? true,
    }),
    publish(gatewayUrl) {
      const file: DevStackFile = { gatewayUrl, ...info };
      // Written whole and renamed, so a script reading it never sees half a file.
      mkdirSync(dirname(filePath), { recursive: true });
      writeFileSync(`${filePath}.tmp`, `${JSON.stringify(file, null, 2)}\n`);
      renameSync(`${filePath}.tmp`, filePath);
    },
    stop: () =>
      (stopping ??= (async () => {
        // Gone first: a stopped stack must not look reachable to scripts.
        rmSync(filePath, { force: true });
        await stack.stop();
      })()),
  };
}

const hex = (length: number) => v.pipe(v.string(), v.regex(new RegExp(`^0x[0-9a-fA-F]{${length}}$`)));

const devStackFileSchema = v.object({
  gatewayUrl: v.pipe(v.string(), v.url()),
  rpcUrl: v.pipe(v.string(), v.url()),
  chainId: v.pipe(v.number(), v.integer()),
  network: v.custom<`eip155:${number}`>((value) => typeof value === 'string' && /^eip155:\d+$/.test(value)),
  facilitatorUrl: v.pipe(v.string(), v.url()),
  usdc: hex(40) as v.GenericSchema<string, Address>,
  payer: v.object({ address: hex(40) as v.GenericSchema<string, Address>, privateKey: hex(64) as v.GenericSchema<string, Hex> }),
  statePath: v.string(),
});

/**
 * Reads the dev file of a gateway running in dev mode, for scripts that talk to the local dev stack.
 * It exists only while that gateway runs (a file left by a crashed one names ports nobody answers on).
 *
 * @param dataDir - The data directory the gateway was started with (`TOLLGATE_DATA_DIR`, `.tollgate`).
 * @returns The dev stack's URLs, addresses and demo payer, or `undefined` when there is no dev file.
 * @throws Error when the file exists but is not a dev file.
 * @example
 * ```ts
 * import { readDevStackFile } from '@tollgate/gateway-server';
 * const dev = readDevStackFile(process.env.TOLLGATE_DATA_DIR ?? '.tollgate');
 * if (dev) console.log(dev.gatewayUrl, dev.rpcUrl, dev.payer.address);
 * ```
 */
export function readDevStackFile(dataDir: string): DevStackFile | undefined {
  const path = devStackFilePath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new Error(`${path} is not valid JSON.`, { cause });
  }
  const parsed = v.safeParse(devStackFileSchema, json);
  if (!parsed.success) throw new Error(`${path} is not a Tollgate dev file (${parsed.issues[0]?.message ?? 'unexpected shape'}).`);
  return parsed.output;
}
