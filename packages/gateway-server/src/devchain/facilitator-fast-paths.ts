import { createBoundedCache } from '@tollgate/core/gateway';
import type { Address, Hash, Hex } from 'viem';

/**
 * `eth_getCode` answers the official scheme asks for several times per payment (the token, the payer).
 * Deployed code never changes at an address, so a non-empty answer is kept; an empty one (an EOA, or a
 * wallet not deployed yet) only for `emptyTtlMs`, so a wallet deployed meanwhile is seen soon.
 *
 * @param read - The real read.
 * @param emptyTtlMs - How long an empty answer is reused (default 2 000 ms).
 * @returns A cached `getCode`.
 */
export function cachedCodeReader(read: (args: { address: Address }) => Promise<Hex | undefined>, emptyTtlMs = 2_000) {
  const codes = createBoundedCache<{ code: Hex | undefined; until: number }>(4_096);
  return async (args: { address: Address }): Promise<Hex | undefined> => {
    const key = args.address.toLowerCase();
    const known = codes.get(key);
    if (known !== undefined && known.until > Date.now()) return known.code;
    const code = await read(args);
    const empty = code === undefined || code === '0x';
    codes.set(key, { code, until: empty ? Date.now() + emptyTtlMs : Number.POSITIVE_INFINITY });
    return code;
  };
}

/** A transaction's gas: a limit, a function deciding it in turn (see {@link preparedSender}), or an estimate. */
export type GasChoice = bigint | (() => Promise<bigint>) | undefined;

/** What {@link preparedSender} needs from viem. */
export interface PreparedSenderClients {
  chainId: number;
  address: Address;
  signTransaction(request: {
    chainId: number;
    type: 'eip1559';
    to: Address;
    data: Hex;
    nonce: number;
    gas: bigint;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
  }): Promise<Hex>;
  sendRawTransaction(serialized: Hex): Promise<Hash>;
  getTransactionCount(address: Address): Promise<number>;
  estimateGas(request: { account: Address; to: Address; data: Hex }): Promise<bigint>;
  estimateFees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
}

/**
 * Sends the facilitator's transactions without re-asking the node what it already told: the nonce is
 * counted locally (read once, and again after any failed send), fees are refreshed every `feesTtlMs`,
 * and the chain id is known. Gas is still estimated for every transaction, because the estimate is also
 * the pre-flight that refuses a doomed transfer (a replayed authorization, an empty balance) before it
 * is broadcast and burns gas. A settle then costs `eth_estimateGas` + `eth_sendRawTransaction` instead of
 * viem's nonce read, `eth_fillTransaction` and send. Sends are serialised so nonces stay in order.
 *
 * @param clients - Signing and the node reads.
 * @param feesTtlMs - How long a fee estimate is reused (default 5 000 ms).
 * @returns `send(to, data, gas?)` → the transaction hash. `gas` may be a function: it is then called in
 *   turn, after every earlier send was broadcast, so a gas decision sees the chain those sends left.
 */
export function preparedSender(clients: PreparedSenderClients, feesTtlMs = 5_000) {
  let nextNonce: number | undefined;
  let fees: { value: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }; until: number } | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function gasFor(to: Address, data: Hex): Promise<bigint> {
    // 20 % headroom over the estimate: state may move between estimate and inclusion on a busy chain.
    return ((await clients.estimateGas({ account: clients.address, to, data })) * 12n) / 10n;
  }

  async function currentFees() {
    if (fees === undefined || fees.until <= Date.now()) fees = { value: await clients.estimateFees(), until: Date.now() + feesTtlMs };
    return fees.value;
  }

  async function sendNow(to: Address, data: Hex, gas: GasChoice): Promise<Hash> {
    const chosen = typeof gas === 'function' ? gas() : gas === undefined ? gasFor(to, data) : Promise.resolve(gas);
    const [limit, fee] = await Promise.all([chosen, currentFees()]);
    nextNonce ??= await clients.getTransactionCount(clients.address);
    const nonce = nextNonce;
    try {
      const serialized = await clients.signTransaction({ chainId: clients.chainId, type: 'eip1559', to, data, nonce, gas: limit, ...fee });
      const hash = await clients.sendRawTransaction(serialized);
      nextNonce = nonce + 1;
      return hash;
    } catch (error) {
      // The node's view of our nonce may differ now (a rejected or replaced transaction): read it again.
      nextNonce = undefined;
      throw error;
    }
  }

  return (to: Address, data: Hex, gas?: GasChoice): Promise<Hash> => {
    const sent = queue.then(() => sendNow(to, data, gas));
    queue = sent.catch(() => undefined);
    return sent;
  };
}

/**
 * Settles without an `eth_estimateGas` per payment, keeping the pre-flight that refuses a doomed transfer
 * before it burns gas. The exact scheme simulates every transfer with `eth_call` in `/verify`; viem's
 * `writeContract` then estimates it again in `/settle`, which costs a node a binary search over gas (about
 * 4 ms on anvil, the largest single cost of a settlement). Here:
 *
 * - a transfer whose simulation passed (`simulated`) within `ttlMs` is sent at once (once: `take` forgets
 *   it), with the highest estimate seen for that contract and function plus `headroomPercent` (its gas
 *   barely moves between payments: a first transfer to an empty balance costs ~17k more, and unused gas
 *   is not charged);
 * - anything else (no recent passing simulation: a replay, a settle without verify, a settle long after
 *   it; or no estimate yet for the function) is estimated first, which is also its pre-flight: a revert
 *   is refused before broadcast, exactly as with `writeContract`.
 *
 * A remembered transfer that reverts anyway has its function's limit forgotten (`raise`), in case gas
 * was the reason.
 *
 * @param ttlMs - How long a passing simulation vouches for its settle (default 30 000 ms).
 * @param headroomPercent - Added on top of the highest estimate (default 50).
 * @returns The bookkeeping: `begin`, `simulated`, `take`, `limitFor`, `record`, `raise`.
 */
export function transferGasPlan(ttlMs = 30_000, headroomPercent = 50) {
  // A simulation vouches for the next send of its call only if it began after the previous send of that
  // call was decided: one that began earlier may have run before that send executed.
  let sequence = 0;
  const passed = createBoundedCache<{ began: number; until: number }>(4_096);
  const decided = createBoundedCache<number>(4_096);
  const highest = createBoundedCache<bigint>(1_024);
  const call = (to: Address, data: Hex) => `${to.toLowerCase()}:${data.toLowerCase()}`;
  // Contract and 4-byte selector: the arguments do not change the code path's gas enough to matter.
  const fn = (to: Address, data: Hex) => `${to.toLowerCase()}:${data.slice(0, 10).toLowerCase()}`;
  return {
    /** Call right before a simulation starts; hand the result to `simulated`. */
    begin(): number {
      sequence += 1;
      return sequence;
    },
    /** A simulation of `data` on `to`, begun at `began`, passed. */
    simulated(to: Address, data: Hex, began: number): void {
      passed.set(call(to, data), { began, until: Date.now() + ttlMs });
    },
    /**
     * Whether a passing simulation vouches for sending `data` now; call it in send order, right before
     * the send. Forgets the simulation either way.
     */
    take(to: Address, data: Hex): boolean {
      const key = call(to, data);
      const simulation = passed.get(key);
      const previous = decided.get(key);
      passed.delete(key);
      sequence += 1;
      decided.set(key, sequence);
      return simulation !== undefined && simulation.until > Date.now() && (previous === undefined || simulation.began > previous);
    },
    limitFor(to: Address, data: Hex): bigint | undefined {
      const known = highest.get(fn(to, data));
      return known === undefined ? undefined : (known * BigInt(100 + headroomPercent)) / 100n;
    },
    record(to: Address, data: Hex, estimate: bigint): void {
      const known = highest.get(fn(to, data));
      if (known === undefined || estimate > known) highest.set(fn(to, data), estimate);
    },
    raise(to: Address, data: Hex): void {
      highest.delete(fn(to, data));
    },
  };
}

/**
 * Waits for a transaction's receipt, asking the node at once and then at short intervals before falling
 * back to `slowWait` (viem's block-polling wait, which sleeps a whole polling interval, 50 ms on the dev
 * chain, whenever the first look misses). A local node mines within milliseconds of the broadcast, so
 * the receipt is almost always there on the first or second look.
 *
 * @param getReceipt - One receipt read; rejects (viem: `TransactionReceiptNotFoundError`) or resolves
 *   `null` while the transaction is not mined.
 * @param slowWait - The full wait, with its own timeout and replacement handling.
 * @param delaysMs - Pauses before each quick look (default 0, 2, 4, 8 ms).
 * @returns The receipt.
 */
export async function quickReceipt<Receipt>(getReceipt: () => Promise<Receipt | null>, slowWait: () => Promise<Receipt>, delaysMs: readonly number[] = [0, 2, 4, 8]): Promise<Receipt> {
  for (const delay of delaysMs) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      const receipt = await getReceipt();
      if (receipt !== null) return receipt;
    } catch {
      // Not mined yet, or the read failed: the slow wait decides either way.
    }
  }
  return slowWait();
}
