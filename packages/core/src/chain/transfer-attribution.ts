import { isAddressEqual, parseEventLogs, type Address, type Log } from 'viem';
import { authorizationUsedEvent, transferEvent } from './abi';

/** The ERC-20 transfer an EIP-3009 authorization executed. */
export interface AttributedTransfer {
  from: Address;
  to: Address;
  value: bigint;
  logIndex: number;
}

type ReceiptLog = Pick<Log, 'address' | 'topics' | 'data' | 'logIndex'>;

/**
 * Finds, in one transaction's logs, the `Transfer` executed by the authorization whose
 * `AuthorizationUsed` log has index `usedLogIndex`. A transaction may execute several authorizations
 * (batched through a multicall), so matching "any transfer of the authorizer" is not enough: the
 * transfer belongs to the `AuthorizationUsed` log it sits next to. USDC emits `AuthorizationUsed` then
 * `Transfer`; tokens that transfer first are covered by also looking back.
 *
 * Rule: among the token's logs in log order, take the first `Transfer` from `authorizer` after the
 * `AuthorizationUsed` log and before the token's next `AuthorizationUsed`; if there is none, the last
 * such `Transfer` before it and after the token's previous `AuthorizationUsed`.
 *
 * @param logs - All logs of the transaction receipt.
 * @param token - The token contract; logs of other contracts are ignored.
 * @param authorizer - The authorization's signer (`from`).
 * @param usedLogIndex - `logIndex` of the `AuthorizationUsed` log.
 * @returns The transfer, or undefined when the authorization moved no tokens from `authorizer`.
 * @example
 * ```ts
 * import { attributeTransfer } from '@tollgate/core/chain';
 * const receipt = await client.getTransactionReceipt({ hash });
 * const transfer = attributeTransfer(receipt.logs, usdc, payer, usedLog.logIndex); // { from, to, value, logIndex }
 * ```
 */
export function attributeTransfer(logs: readonly ReceiptLog[], token: Address, authorizer: Address, usedLogIndex: number): AttributedTransfer | undefined {
  const tokenLogs = logs.filter((log) => isAddressEqual(log.address, token)) as Log[];
  const events = parseEventLogs({ abi: [transferEvent, authorizationUsedEvent], logs: tokenLogs, strict: true }).sort(
    (a, b) => (a.logIndex ?? 0) - (b.logIndex ?? 0),
  );
  const position = events.findIndex((event) => event.eventName === 'AuthorizationUsed' && event.logIndex === usedLogIndex);
  if (position < 0) return undefined;

  const asTransfer = (index: number): AttributedTransfer | 'boundary' | undefined => {
    const event = events[index];
    if (!event || event.eventName === 'AuthorizationUsed') return 'boundary';
    if (!isAddressEqual(event.args.from, authorizer)) return undefined;
    return { from: event.args.from, to: event.args.to, value: event.args.value, logIndex: event.logIndex ?? 0 };
  };
  for (let index = position + 1; index < events.length; index++) {
    const found = asTransfer(index);
    if (found === 'boundary') break;
    if (found) return found;
  }
  for (let index = position - 1; index >= 0; index--) {
    const found = asTransfer(index);
    if (found === 'boundary') break;
    if (found) return found;
  }
  return undefined;
}
