import { hexToBigInt, isAddress, isAddressEqual, pad, toEventSelector, toHex, type Address, type Hash, type Hex, type PublicClient } from 'viem';
import { authorizationCanceledEvent, authorizationUsedEvent, eip3009Abi } from './abi';
import { blockRanges } from './block-ranges';
import { chainRead } from './errors';
import { attributeTransfer } from './transfer-attribution';

/** The viem client calls the reader makes; any viem `PublicClient` satisfies it. */
export type ChainEvidenceClient = Pick<PublicClient, 'readContract' | 'getBlockNumber' | 'getTransactionReceipt' | 'request'>;

/** Parameters of {@link findAuthorizationSettlement}. */
export interface FindAuthorizationSettlementParams {
  client: ChainEvidenceClient;
  /** The EIP-3009 token contract (USDC). */
  token: Address;
  /** The authorization's signer (`authorization.from`). */
  authorizer: Address;
  /** The authorization's 32-byte nonce. */
  nonce: Hex;
  /** The payee the authorization must have paid (`authorization.to` / requirements `payTo`). */
  payTo: Address;
  /** The amount in atomic units it must have moved. */
  value: bigint;
  /**
   * The block every read is pinned to: `authorizationState` is read at it and the log scan ends at it,
   * so a load-balanced RPC whose nodes lag each other cannot answer from an older state than the head
   * the caller judged by. Pass the number of the head block you read (with its timestamp); a node that
   * does not know the block yet fails the read (`ChainReadError`). Default: the head, read first.
   */
  blockNumber?: bigint;
  /** First block to search (inclusive). Default 0: pass the block at which the payment was first seen. */
  fromBlock?: bigint;
  /** Last block to search (inclusive). Default, and at most, the pinned block. */
  toBlock?: bigint;
  /** Most blocks per `eth_getLogs` call (providers cap it, often 1 000–10 000). */
  maxBlockSpan: bigint | number;
  /**
   * Most blocks searched in this call, in all: the range is cut to this many blocks from the end the
   * walk starts at (the newest for `backward`, the oldest for `forward`). Default: no cap.
   */
  maxScanBlocks?: bigint | number;
  /** Walk from the newest range back (`backward`, default: recent payments are found first) or forward. */
  direction?: 'backward' | 'forward';
  /** Deadline per RPC call. Default 10 000 ms. */
  timeoutMs?: number;
}

/** Why a consumed nonce is not the expected payment. */
export type SettlementMismatchReason = 'canceled' | 'payee_mismatch' | 'value_mismatch' | 'transfer_missing';

/** The outcome of {@link findAuthorizationSettlement}. */
export type AuthorizationSettlementEvidence =
  | {
      status: 'settled';
      txHash: Hash;
      blockNumber: bigint;
      blockHash: Hash;
      /** Index of the `Transfer` log in its block. */
      logIndex: number;
      from: Address;
      to: Address;
      value: bigint;
    }
  | { status: 'not_found' }
  | {
      status: 'mismatch';
      reason: SettlementMismatchReason;
      txHash: Hash;
      blockNumber: bigint;
      blockHash: Hash;
      /** The transfer that did happen, for `payee_mismatch` / `value_mismatch`. */
      transfer?: { from: Address; to: Address; value: bigint };
    }
  | { status: 'outside_range'; fromBlock: bigint; toBlock: bigint };

const usedTopic = toEventSelector(authorizationUsedEvent);
const canceledTopic = toEventSelector(authorizationCanceledEvent);

interface RawLog {
  blockNumber: Hex | null;
  blockHash: Hash | null;
  transactionHash: Hash | null;
  logIndex: Hex | null;
  topics: readonly Hex[];
  removed?: boolean;
}

function checkParams(params: FindAuthorizationSettlementParams): bigint {
  for (const [name, address] of [['token', params.token], ['authorizer', params.authorizer], ['payTo', params.payTo]] as const) {
    if (!isAddress(address, { strict: false })) throw new TypeError(`${name} is not an address: ${String(address)}.`);
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(params.nonce)) throw new TypeError('nonce must be 32 bytes of 0x-prefixed hex.');
  if (params.value < 0n) throw new RangeError('value must be ≥ 0.');
  const span = BigInt(params.maxBlockSpan);
  if (span < 1n) throw new RangeError(`maxBlockSpan must be ≥ 1, got ${span}.`);
  if (params.fromBlock !== undefined && params.fromBlock < 0n) throw new RangeError('fromBlock must be ≥ 0.');
  if (params.blockNumber !== undefined && params.blockNumber < 0n) throw new RangeError('blockNumber must be ≥ 0.');
  if (params.maxScanBlocks !== undefined && BigInt(params.maxScanBlocks) < 1n) throw new RangeError(`maxScanBlocks must be ≥ 1, got ${params.maxScanBlocks}.`);
  if (params.fromBlock !== undefined && params.toBlock !== undefined && params.toBlock < params.fromBlock) {
    throw new RangeError(`toBlock (${params.toBlock}) is before fromBlock (${params.fromBlock}).`);
  }
  return span;
}

/**
 * Finds on-chain evidence that an EIP-3009 authorization `(authorizer, nonce)` was executed on
 * `token`, and whether it paid `value` to `payTo`. Shared by the settlement "pending" path and
 * `/recover-settlement`, so its contract is exact:
 *
 * 1. Reads `authorizationState(authorizer, nonce)` at the pinned block (`blockNumber`, else the head
 *    read first). `false` → `{ status: 'not_found' }` with no log scan: the authorization was not
 *    executed (yet) as of that block. A broadcast that is not mined yet is `not_found` too; ask again later.
 * 2. Otherwise scans `AuthorizationUsed` / `AuthorizationCanceled` logs of `token` filtered by both
 *    indexed topics, over `[fromBlock, min(toBlock, pinned block)]` (cut to `maxScanBlocks`) in ranges of
 *    at most `maxBlockSpan` blocks (newest first by default), stopping at the first hit. Logs flagged
 *    `removed` (reorg) are ignored.
 *    - `AuthorizationCanceled` → `mismatch`, reason `canceled`.
 *    - `AuthorizationUsed` → reads the receipt and attributes the `Transfer` of that authorization
 *      (see `attributeTransfer`): none → `transfer_missing`; another payee → `payee_mismatch`; another
 *      amount → `value_mismatch`; both equal → `settled` with the transfer's position.
 *    - No log in the range → `{ status: 'outside_range' }` with the range searched: the nonce is
 *      consumed but its event lies outside the searched blocks (or the node serving the logs lags).
 *
 * Reads only; safe to call repeatedly and concurrently. `settled` reflects the chain at the time of
 * the call: keep `blockHash` to re-check against reorgs if finality matters.
 *
 * @param params - Client, token, authorization identity, expected payee and amount, block range.
 * @returns The evidence.
 * @throws ChainReadError (`rpc_unavailable`) when any RPC call fails or exceeds `timeoutMs`, including a
 *   node that does not know the pinned block yet.
 * @throws TypeError / RangeError on malformed parameters (addresses, nonce, negative or inverted range, span or cap < 1).
 * @example
 * ```ts
 * import { findAuthorizationSettlement } from '@tollgate/core/chain';
 * const head = await client.getBlock({ blockTag: 'latest' });
 * const evidence = await findAuthorizationSettlement({ client, token: usdc, authorizer: payer, nonce, payTo, value: 10_000n, blockNumber: head.number, fromBlock: 1_000n, maxBlockSpan: 2_000 });
 * if (evidence.status === 'settled') console.log(evidence.txHash);
 * ```
 */
export async function findAuthorizationSettlement(params: FindAuthorizationSettlementParams): Promise<AuthorizationSettlementEvidence> {
  const span = checkParams(params);
  const { client, token, authorizer, nonce } = params;
  const timeoutMs = params.timeoutMs ?? 10_000;

  // One block for every read: the state and the logs describe the same chain.
  const pinned = params.blockNumber ?? (await chainRead('eth_blockNumber', timeoutMs, () => client.getBlockNumber({ cacheTime: 0 })));
  const consumed = await chainRead('eth_call authorizationState', timeoutMs, () =>
    client.readContract({ address: token, abi: eip3009Abi, functionName: 'authorizationState', args: [authorizer, nonce], blockNumber: pinned }),
  );
  if (!consumed) return { status: 'not_found' };

  const direction = params.direction ?? 'backward';
  let fromBlock = params.fromBlock ?? 0n;
  let toBlock = params.toBlock !== undefined && params.toBlock < pinned ? params.toBlock : pinned;
  if (fromBlock > toBlock) return { status: 'outside_range', fromBlock, toBlock };
  if (params.maxScanBlocks !== undefined) {
    const cap = BigInt(params.maxScanBlocks);
    if (toBlock - fromBlock + 1n > cap) {
      if (direction === 'backward') fromBlock = toBlock - cap + 1n;
      else toBlock = fromBlock + cap - 1n;
    }
  }

  for (const range of blockRanges(fromBlock, toBlock, span, direction)) {
    const logs = (await chainRead('eth_getLogs', timeoutMs, () =>
      client.request({
        method: 'eth_getLogs',
        params: [{ address: token, topics: [[usedTopic, canceledTopic], pad(authorizer), nonce], fromBlock: toHex(range.from), toBlock: toHex(range.to) }],
      }),
    )) as readonly RawLog[];
    const hit = logs
      .filter((log) => !log.removed && log.transactionHash && log.blockHash && log.blockNumber && log.logIndex)
      .sort((a, b) => Number(hexToBigInt(a.blockNumber as Hex) - hexToBigInt(b.blockNumber as Hex)) || Number(hexToBigInt(a.logIndex as Hex) - hexToBigInt(b.logIndex as Hex)))[0];
    if (!hit) continue;
    return evidenceFromLog(params, hit, timeoutMs);
  }
  return { status: 'outside_range', fromBlock, toBlock };
}

async function evidenceFromLog(params: FindAuthorizationSettlementParams, log: RawLog, timeoutMs: number): Promise<AuthorizationSettlementEvidence> {
  const txHash = log.transactionHash as Hash;
  const blockHash = log.blockHash as Hash;
  const blockNumber = hexToBigInt(log.blockNumber as Hex);
  const where = { txHash, blockNumber, blockHash };
  if (log.topics[0] === canceledTopic) return { status: 'mismatch', reason: 'canceled', ...where };

  const receipt = await chainRead('eth_getTransactionReceipt', timeoutMs, () => params.client.getTransactionReceipt({ hash: txHash }));
  const transfer = attributeTransfer(receipt.logs, params.token, params.authorizer, Number(hexToBigInt(log.logIndex as Hex)));
  if (!transfer) return { status: 'mismatch', reason: 'transfer_missing', ...where };
  const happened = { from: transfer.from, to: transfer.to, value: transfer.value };
  if (!isAddressEqual(transfer.to, params.payTo)) return { status: 'mismatch', reason: 'payee_mismatch', ...where, transfer: happened };
  if (transfer.value !== params.value) return { status: 'mismatch', reason: 'value_mismatch', ...where, transfer: happened };
  return { status: 'settled', ...where, logIndex: transfer.logIndex, ...happened };
}
