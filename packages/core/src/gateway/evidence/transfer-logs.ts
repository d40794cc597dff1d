import { getAddress, hexToBigInt, isAddressEqual, toEventSelector, type Address, type Hash, type Hex } from 'viem';
import { authorizationUsedEvent, transferEvent } from '../../chain/abi';
import { attributeTransfer } from '../../chain/transfer-attribution';
import type { RawLog } from './chain-reads';

/** `topics[0]` of ERC-20 `Transfer`. */
export const transferTopic: Hex = toEventSelector(transferEvent);
/** `topics[0]` of EIP-3009 `AuthorizationUsed`. */
export const authorizationUsedTopic: Hex = toEventSelector(authorizationUsedEvent);

/** A USDC `Transfer` log, decoded. Values are decimal strings (they exceed 2^53). */
export interface TokenTransfer {
  readonly token: Address;
  readonly from: Address;
  readonly to: Address;
  readonly value: string;
  readonly logIndex: number;
}

/** A token transfer with where it happened: one item of `/txs`. */
export interface LocatedTransfer extends TokenTransfer {
  readonly txHash: Hash;
  readonly blockNumber: string;
  readonly blockHash: Hash;
}

const wordPattern = /^0x[0-9a-fA-F]{64}$/;
const topicAddress = (topic: Hex): Address => getAddress(`0x${topic.slice(26)}`);

/**
 * Decodes `log` when it is a standard `Transfer` of `token` (three topics, a 32-byte value); anything
 * else (another contract, an ERC-721 transfer with an indexed id, a malformed log) is `undefined`.
 *
 * @param log - A raw log.
 * @param token - The token contract.
 * @returns The transfer, or `undefined`.
 * @example
 * ```ts
 * import { decodeTokenTransfer } from '@tollgate/core/gateway';
 * const transfer = decodeTokenTransfer(log, network.usdc.address);
 * ```
 */
export function decodeTokenTransfer(log: RawLog, token: Address): TokenTransfer | undefined {
  const [topic0, from, to] = log.topics;
  if (log.topics.length !== 3 || topic0?.toLowerCase() !== transferTopic || from === undefined || to === undefined) return undefined;
  if (!isAddressEqual(log.address, token) || !wordPattern.test(from) || !wordPattern.test(to) || !wordPattern.test(log.data) || log.logIndex === null) return undefined;
  return { token: getAddress(log.address), from: topicAddress(from), to: topicAddress(to), value: hexToBigInt(log.data).toString(), logIndex: Number(hexToBigInt(log.logIndex)) };
}

/**
 * Every `Transfer` of `token` in `logs`, in log order.
 *
 * @param logs - A transaction's logs.
 * @param token - The token contract.
 * @returns The transfers.
 * @example
 * ```ts
 * import { tokenTransfers } from '@tollgate/core/gateway';
 * const transfers = tokenTransfers(receipt.logs, network.usdc.address);
 * ```
 */
export function tokenTransfers(logs: readonly RawLog[], token: Address): TokenTransfer[] {
  return logs.flatMap((log) => {
    const transfer = decodeTokenTransfer(log, token);
    return transfer === undefined ? [] : [transfer];
  });
}

/** An EIP-3009 authorization executed in a transaction, with the transfer it made (when any). */
export interface ExecutedAuthorization {
  readonly authorizer: Address;
  readonly nonce: Hex;
  readonly transfer: TokenTransfer | undefined;
}

/**
 * The `AuthorizationUsed` logs of `token` in `logs`, each with the `Transfer` it executed (attributed
 * as `attributeTransfer` does, so two authorizations batched in one transaction are told apart).
 *
 * @param logs - A transaction's logs.
 * @param token - The EIP-3009 token.
 * @returns The executed authorizations, in log order.
 * @example
 * ```ts
 * import { executedAuthorizations } from '@tollgate/core/gateway';
 * const used = executedAuthorizations(receipt.logs, usdc).find((entry) => entry.nonce === nonce);
 * ```
 */
export function executedAuthorizations(logs: readonly RawLog[], token: Address): ExecutedAuthorization[] {
  const indexed = logs.flatMap((log) => (log.logIndex === null ? [] : [{ address: log.address, topics: [...log.topics] as [Hex, ...Hex[]], data: log.data, logIndex: Number(hexToBigInt(log.logIndex)) }]));
  return indexed.flatMap((log) => {
    const [topic0, authorizer, nonce] = log.topics;
    if (log.topics.length !== 3 || topic0.toLowerCase() !== authorizationUsedTopic || !isAddressEqual(log.address, token)) return [];
    if (authorizer === undefined || nonce === undefined || !wordPattern.test(authorizer) || !wordPattern.test(nonce)) return [];
    const from = topicAddress(authorizer);
    let transfer: TokenTransfer | undefined;
    try {
      const found = attributeTransfer(indexed, token, from, log.logIndex);
      transfer = found && { token: getAddress(token), from: found.from, to: found.to, value: found.value.toString(), logIndex: found.logIndex };
    } catch {
      // A token log that does not decode (a non-standard event under the same selector) attributes nothing.
      transfer = undefined;
    }
    return [{ authorizer: from, nonce: nonce.toLowerCase() as Hex, transfer }];
  });
}
