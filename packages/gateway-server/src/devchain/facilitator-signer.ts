import { AsyncLocalStorage } from 'node:async_hooks';
import type { FacilitatorEvmSigner } from '@x402/evm';
import { concat, encodeFunctionData, type Abi, type Account, type Address, type Chain, type Hash, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { createBoundedCache } from '@tollgate/core/gateway';
import { cachedCodeReader, preparedSender, type GasChoice, quickReceipt, transferGasPlan } from './facilitator-fast-paths';

/**
 * The facilitator could not reach its chain node during a verify or settle. Raised instead of the
 * misleading verdict the official scheme reaches when its reads fail (it reports an invalid signature
 * or a failed simulation). Carries the first transport error as `cause`. `startFacilitatorServer`
 * answers it with 503 `rpc_unavailable`.
 *
 * @example
 * ```ts
 * import { FacilitatorRpcError } from '@tollgate/gateway-server/devchain';
 * try { await local.facilitator.verify(payload, requirements); }
 * catch (e) { if (e instanceof FacilitatorRpcError) console.log('chain node down, retry later'); }
 * ```
 */
export class FacilitatorRpcError extends Error {
  override readonly name = 'FacilitatorRpcError';

  constructor(operation: string, cause: unknown) {
    super(`The facilitator could not reach its chain node during ${operation}.`, { cause });
  }
}

/** Per verify/settle call: the transport failures seen by the signer while serving it. */
const callScope = new AsyncLocalStorage<{ failures: unknown[] }>();

/** True for failures to reach the node (HTTP error, timeout), false for answers such as reverts. */
export function isUnreachable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (['HttpRequestError', 'TimeoutError', 'WebSocketRequestError', 'SocketClosedError'].includes(current.name)) return true;
  }
  return false;
}

async function observed<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isUnreachable(error)) callScope.getStore()?.failures.push(error);
    throw error;
  }
}

/**
 * Runs one verify/settle of the official facilitator and turns "the chain node was unreachable
 * meanwhile" into a {@link FacilitatorRpcError}, whether the scheme threw or returned a verdict built
 * on failed reads. Concurrent calls are isolated: each sees only its own failures.
 *
 * @param operation - `verify` or `settle`, for the error message.
 * @param run - The official call.
 * @param keepDespiteFailure - Results to return even after a failure (a settle that broadcast keeps
 *   its transaction hash).
 * @returns The official result.
 * @throws FacilitatorRpcError when a read failed to reach the node and the result is not kept.
 */
export async function withRpcObservation<T>(operation: string, run: () => Promise<T>, keepDespiteFailure: (result: T) => boolean = () => false): Promise<T> {
  const scope = { failures: [] as unknown[] };
  let result: T;
  try {
    result = await callScope.run(scope, run);
  } catch (error) {
    if (scope.failures.length > 0) throw new FacilitatorRpcError(operation, scope.failures[0]);
    throw error;
  }
  if (scope.failures.length > 0 && !keepDespiteFailure(result)) throw new FacilitatorRpcError(operation, scope.failures[0]);
  return result;
}

/** What the adapter needs from viem. */
export interface SignerClients {
  publicClient: PublicClient<Transport, Chain>;
  walletClient: WalletClient<Transport, Chain, Account>;
  /** Test fault hook, see `LocalFacilitatorOptions.onTransactionBroadcast`. */
  onTransactionBroadcast?: (txHash: Hash) => void | Promise<void>;
}

/**
 * The explicit adapter object `toFacilitatorEvmSigner` expects, over viem public and wallet clients
 * (`walletClient.extend(publicActions)` works at runtime but does not type-check). Every read records
 * transport failures for {@link withRpcObservation}; `getCode` additionally answers `undefined`
 * instead of throwing, because the official scheme starts an asset check whose rejection it may
 * abandon (an unhandled rejection that would crash the process). Fast paths (see
 * `facilitator-fast-paths.ts`) cut a payment's cost without changing any verdict: `eth_getCode` cached,
 * a just-simulated transfer sent with a remembered gas limit instead of a fresh estimate, transactions
 * sent with a locally counted nonce instead of viem's fill round trips, and the receipt asked for at once.
 *
 * @param clients - The viem clients and the optional broadcast hook.
 * @returns The adapter, to pass to `toFacilitatorEvmSigner`.
 */
export function createSignerAdapter(clients: SignerClients): Omit<FacilitatorEvmSigner, 'getAddresses'> & { address: Address } {
  const { publicClient, walletClient, onTransactionBroadcast } = clients;
  const account = walletClient.account;
  const signTransaction = account.signTransaction;
  if (signTransaction === undefined) throw new TypeError('The facilitator account must be a local account (it signs transactions itself).');
  const sendPrepared = preparedSender({
    chainId: walletClient.chain.id,
    address: account.address,
    signTransaction: (request) => signTransaction(request),
    sendRawTransaction: (serializedTransaction) => observed(() => publicClient.sendRawTransaction({ serializedTransaction })),
    getTransactionCount: (address) => observed(() => publicClient.getTransactionCount({ address, blockTag: 'pending' })),
    estimateGas: (request) => observed(() => publicClient.estimateGas(request)),
    estimateFees: () => observed(() => publicClient.estimateFeesPerGas()),
  });
  const send = async (to: Address, data: Hex, gas?: GasChoice): Promise<Hash> => {
    const hash = await sendPrepared(to, data, gas);
    if (onTransactionBroadcast) await onTransactionBroadcast(hash);
    return hash;
  };
  const getCode = cachedCodeReader((args) => observed(() => publicClient.getCode(args)));
  const gasPlan = transferGasPlan();
  // The transfers sent with a remembered limit, by hash: a reverted one may have run out of gas.
  const limitedTransfers = createBoundedCache<{ to: Address; data: Hex }>(1_024);
  // The EIP-3009 transfers the exact scheme simulates in /verify and then executes in /settle.
  const transfers = new Set(['transferWithAuthorization', 'receiveWithAuthorization']);
  const read = (args: Parameters<FacilitatorEvmSigner['readContract']>[0]) =>
    observed(() => publicClient.readContract({ address: args.address, abi: args.abi as Abi, functionName: args.functionName, args: args.args ?? [] }));
  return {
    address: account.address,
    readContract: async (args) => {
      if (!transfers.has(args.functionName)) return read(args);
      const began = gasPlan.begin();
      const result = await read(args);
      // Reached only when the simulation did not revert.
      gasPlan.simulated(args.address, encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args ?? [] }), began);
      return result;
    },
    verifyTypedData: (args) => observed(() => publicClient.verifyTypedData(args as unknown as Parameters<typeof publicClient.verifyTypedData>[0])),
    writeContract: async (args) => {
      const data = encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args });
      const calldata = args.dataSuffix ? concat([data, args.dataSuffix]) : data;
      const given = args.gas;
      // Decided in send order, after every earlier transaction was broadcast: a duplicate of a transfer
      // just sent is estimated against the chain that transfer left, and reverts unsent.
      const chooseGas = async (): Promise<bigint> => {
        if (given !== undefined) return given;
        const remembered = gasPlan.take(args.address, data) ? gasPlan.limitFor(args.address, data) : undefined;
        if (remembered !== undefined) return remembered;
        // The estimate is the pre-flight too: a transfer that would revert throws here, unsent.
        gasPlan.record(args.address, data, await observed(() => publicClient.estimateGas({ account: account.address, to: args.address, data: calldata })));
        return gasPlan.limitFor(args.address, data) as bigint;
      };
      const hash = await send(args.address, calldata, chooseGas);
      if (given === undefined) limitedTransfers.set(hash, { to: args.address, data });
      return hash;
    },
    sendTransaction: (args) => send(args.to, args.data),
    waitForTransactionReceipt: async (args) => {
      const receipt = await observed(() =>
        quickReceipt(
          () => publicClient.getTransactionReceipt({ hash: args.hash }),
          () => publicClient.waitForTransactionReceipt(args),
        ),
      );
      const limited = limitedTransfers.get(args.hash);
      // Whatever made it revert, the next transfer of this kind gets a fresh estimate.
      if (limited !== undefined && receipt.status === 'reverted') gasPlan.raise(limited.to, limited.data);
      return receipt;
    },
    getCode: async (args) => {
      try {
        return await getCode(args);
      } catch (error) {
        if (isUnreachable(error)) return undefined;
        throw error;
      }
    },
  };
}
