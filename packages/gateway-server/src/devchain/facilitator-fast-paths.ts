import { createBoundedCache, hexDecode, recoverDigestSigner } from '@tollgate/core';
import { hashTypedData, type Address, type Hash, type Hex, type TypedDataDefinition } from 'viem';

/**
 * EOA signature checks without the RPC round trip and with one recovery per payment. The official exact
 * scheme verifies the same EIP-712 authorization twice per payment (in `/verify` and again inside
 * `/settle`), through viem's ERC-6492-aware `verifyTypedData`, which costs ~2.4 ms each. Here the digest is
 * hashed once, the 65-byte signature recovered with `@noble/curves`, and a positive answer remembered, so
 * settle's re-check is free. Anything that does not recover to the address (a smart wallet's ERC-1271 or
 * ERC-6492 signature, or a wrong signature) falls through to `slow`, which decides.
 *
 * @param slow - The full check (viem's `verifyTypedData` on a public client).
 * @returns A `verifyTypedData` with the same answers, faster for EOAs.
 */
export function fastTypedDataVerifier(slow: (args: TypedDataDefinition & { address: Address; signature: Hex }) => Promise<boolean>) {
  const verified = createBoundedCache<true>(4_096);
  return async (args: TypedDataDefinition & { address: Address; signature: Hex }): Promise<boolean> => {
    const digest = hashTypedData(args as TypedDataDefinition);
    const key = `${digest}:${args.signature.toLowerCase()}:${args.address.toLowerCase()}`;
    if (verified.get(key)) return true;
    const recovered = recoverDigestSigner(hexDecode(digest.slice(2)), args.signature);
    if (recovered.ok && recovered.address.toLowerCase() === args.address.toLowerCase()) {
      verified.set(key, true);
      return true;
    }
    return slow(args);
  };
}

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
 * @returns `send(to, data, gas?)` → the transaction hash.
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

  async function sendNow(to: Address, data: Hex, gas: bigint | undefined): Promise<Hash> {
    const [limit, fee] = await Promise.all([gas === undefined ? gasFor(to, data) : Promise.resolve(gas), currentFees()]);
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

  return (to: Address, data: Hex, gas?: bigint): Promise<Hash> => {
    const sent = queue.then(() => sendNow(to, data, gas));
    queue = sent.catch(() => undefined);
    return sent;
  };
}

/**
 * Gas estimates taken while verifying, handed to the settle of the same call. The exact scheme simulates
 * `transferWithAuthorization` during `/verify`; simulating it with `eth_estimateGas` instead of `eth_call`
 * is the same check (a revert is a revert) and also yields the gas, so the settle moments later need no
 * second estimate. An estimate is used once and only within `ttlMs`, so a settle long after its verify
 * estimates afresh (and with it re-checks that the transfer would still succeed).
 *
 * @param ttlMs - How long a verify's estimate may be used by its settle (default 30 000 ms).
 * @returns `remember(to, data, gas)` and `take(to, data)`.
 */
export function gasFromVerify(ttlMs = 30_000) {
  const estimates = createBoundedCache<{ gas: bigint; until: number }>(4_096);
  const key = (to: Address, data: Hex) => `${to.toLowerCase()}:${data.toLowerCase()}`;
  return {
    remember(to: Address, data: Hex, gas: bigint): void {
      estimates.set(key(to, data), { gas, until: Date.now() + ttlMs });
    },
    take(to: Address, data: Hex): bigint | undefined {
      const found = estimates.get(key(to, data));
      if (found === undefined) return undefined;
      estimates.delete(key(to, data));
      return found.until > Date.now() ? found.gas : undefined;
    },
  };
}
