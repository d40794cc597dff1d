import type { Address, PublicClient } from 'viem';
import type { GatewayNetwork } from '../networks';

/**
 * The chain calls the evidence routes make, all raw JSON-RPC (`eth_blockNumber`,
 * `eth_getTransactionReceipt`, `eth_getTransactionByHash`, `eth_getBlockByNumber`, `eth_getLogs`). Any
 * viem `PublicClient` satisfies it.
 */
export type EvidenceChainClient = Pick<PublicClient, 'request'>;

/** Bounds and tunables of the evidence routes; every one has a default ({@link defaultEvidenceSettings}). */
export interface EvidenceSettings {
  /** Deadline of each JSON-RPC call; also the time budget after which `/txs` stops walking and answers with a cursor. */
  readonly rpcTimeoutMs: number;
  /** Most blocks one `eth_getLogs` call of `/txs` covers (providers cap it, often 1 000–10 000). */
  readonly maxBlockSpan: number;
  /** Most blocks one `/txs` request walks (in windows of `maxBlockSpan`) before it answers with a cursor. */
  readonly historyScanBlocks: number;
  /** Largest JSON body of a `/txs` page or a `/tx` answer: items and logs stop before it is reached. */
  readonly maxResponseBytes: number;
  /** Most logs a `/tx` answer lists (`logsTruncated` says when there were more). */
  readonly maxTxLogs: number;
  /**
   * Confirmations after which a transaction is final: its receipt is cached and never read again (only
   * the head is, for the confirmation count). Pick a depth your chain does not reorganise.
   */
  readonly finalityConfirmations: number;
  /** Entries of each cache (final transactions, receipt signature checks). */
  readonly cacheSize: number;
}

/**
 * Defaults: 5 s per RPC call, 2 000-block `eth_getLogs` windows, 20 000 blocks walked per `/txs`
 * request, 256 KiB answers, 100 logs per `/tx`, final after 64 confirmations, 4 096 cache entries.
 *
 * @example
 * ```ts
 * import { defaultEvidenceSettings } from '@tollgate/core/gateway';
 * const settings = { ...defaultEvidenceSettings, finalityConfirmations: 12 };
 * ```
 */
export const defaultEvidenceSettings: EvidenceSettings = Object.freeze({
  rpcTimeoutMs: 5_000,
  maxBlockSpan: 2_000,
  historyScanBlocks: 20_000,
  maxResponseBytes: 256 * 1024,
  maxTxLogs: 100,
  finalityConfirmations: 64,
  cacheSize: 4_096,
});

/** The smallest `maxResponseBytes`: an answer's envelope and one item or log always fit. */
export const minEvidenceResponseBytes = 4_096;

/**
 * Who may call the evidence routes: `public` (anyone, per-address rate limits) or `merchant` (a merchant
 * API key, and a merchant sees only evidence about its own payTo addresses).
 */
export type EvidenceAccessMode = 'public' | 'merchant';

/** What `createGateway` needs to serve `/verify-receipt`, `/tx/:txHash` and `/txs`. */
export interface EvidenceOptions {
  /** The chain client of a network; `undefined` when none is configured (the network cannot be queried). */
  readonly chain: (network: GatewayNetwork) => EvidenceChainClient | undefined;
  /** The address receipts are signed with now. Default: the payment signer's address. */
  readonly receiptSigner?: Address;
  /**
   * Addresses that signed receipts before a key rotation and whose receipts still verify. Remove one and
   * its receipts stop verifying at once (its signature checks are cached, its acceptance is not).
   */
  readonly previousReceiptSigners?: readonly Address[];
  /** Who may call the routes. Default `public`. */
  readonly access?: EvidenceAccessMode;
  readonly settings?: Partial<EvidenceSettings>;
}

/**
 * The settings with defaults filled in and checked.
 *
 * @param overrides - Partial settings.
 * @returns Complete, frozen settings.
 * @throws RangeError when a value is not a positive safe integer, or `maxResponseBytes` is below {@link minEvidenceResponseBytes}.
 * @example
 * ```ts
 * import { resolveEvidenceSettings } from '@tollgate/core/gateway';
 * resolveEvidenceSettings({ maxBlockSpan: 500 }).historyScanBlocks; // 20000
 * ```
 */
export function resolveEvidenceSettings(overrides: Partial<EvidenceSettings> = {}): EvidenceSettings {
  const settings = { ...defaultEvidenceSettings, ...overrides };
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isSafeInteger(value) || (value as number) < 1) throw new RangeError(`Evidence setting ${name} must be a positive integer, got ${String(value)}.`);
  }
  if (settings.maxResponseBytes < minEvidenceResponseBytes) throw new RangeError(`maxResponseBytes must be at least ${minEvidenceResponseBytes}.`);
  return Object.freeze(settings);
}
