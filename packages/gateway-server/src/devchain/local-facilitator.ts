import { x402Facilitator } from '@x402/core/facilitator';
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createKeepAliveFetch } from '@tollgate/core/node';
import { createWalletClient, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createDevPublicClient, devChainDefinition, devTransport, readChainId } from './chain';
import { createSignerAdapter, withRpcObservation } from './facilitator-signer';
import type { FacilitatorBackend } from './facilitator-server';

/** Options of {@link createLocalFacilitator}. */
export interface LocalFacilitatorOptions {
  /** JSON-RPC endpoint of the chain to settle on. */
  rpcUrl: string;
  /** Key of the account that submits settlements and pays their gas. */
  privateKey: Hex;
  /** CAIP-2 networks to serve; each must be `eip155:<the node's chain id>`. Default `['eip155:31337']`. */
  networks?: readonly Network[];
  /**
   * How long settle waits for the receipt after broadcasting. When it runs out, the official scheme
   * answers `success: false, errorReason: "settlement_pending"` with the transaction hash. Default 30 000.
   */
  receiptTimeoutMs?: number;
  /** Receipt polling interval. Default 50 ms (anvil mines on arrival). */
  pollingIntervalMs?: number;
  /**
   * Fault-injection point for tests, called after a settlement transaction was broadcast and before
   * its receipt is awaited. A promise that never settles reproduces "broadcast, then hang"; a throw
   * reproduces a facilitator that loses the hash. Leave unset in normal use.
   */
  onTransactionBroadcast?: (txHash: Hash) => void | Promise<void>;
}

/** A self-hosted x402 facilitator made of the official packages. */
export interface LocalFacilitator {
  /**
   * What to serve (pass it to `startFacilitatorServer`): the official facilitator's verify, settle and
   * getSupported, except that a call during which the chain node was unreachable throws
   * `FacilitatorRpcError` instead of returning the scheme's misleading verdict. A settle that
   * already broadcast a transaction keeps its answer (it carries the hash).
   */
  readonly facilitator: FacilitatorBackend;
  /** The official `x402Facilitator` with `ExactEvmScheme` registered, e.g. to add its hooks. */
  readonly official: x402Facilitator;
  /** The account that submits settlements (listed under `signers` in `/supported`). */
  readonly address: Address;
  /** The networks it serves. */
  readonly networks: readonly Network[];
  /** The chain id of its node. */
  readonly chainId: number;
}

/**
 * Creates an x402 facilitator for a local chain from the official building blocks: `x402Facilitator`
 * (`@x402/core/facilitator`), `ExactEvmScheme` (`@x402/evm/exact/facilitator`) and
 * `toFacilitatorEvmSigner` (`@x402/evm`). Only the v2 `exact` scheme is registered, for the given
 * networks (not the v1 mainnet/testnet names `registerExactEvmScheme` would add).
 *
 * The signer is an explicit adapter over viem clients: `walletClient.extend(publicActions)` works at
 * runtime but does not type-check against `FacilitatorEvmSigner`. Transactions use viem's nonce manager
 * so concurrent settlements from one account do not collide.
 *
 * @param options - RPC endpoint, settlement key, networks, receipt timeout and the test fault hook.
 * @returns The facilitator and its settlement address.
 * @throws Error when the node does not answer or a network does not match its chain id.
 * @example
 * ```ts
 * import { createLocalFacilitator, startFacilitatorServer, devAccountKeys } from '@tollgate/gateway-server/devchain';
 * const local = await createLocalFacilitator({ rpcUrl, privateKey: devAccountKeys.facilitator });
 * const server = await startFacilitatorServer({ facilitator: local.facilitator });
 * console.log(server.url); // POST /verify, POST /settle, GET /supported
 * ```
 */
export async function createLocalFacilitator(options: LocalFacilitatorOptions): Promise<LocalFacilitator> {
  const networks = options.networks ?? ['eip155:31337'];
  if (networks.length === 0) throw new Error('createLocalFacilitator needs at least one network.');
  const chainId = await readChainId(options.rpcUrl);
  for (const network of networks) {
    if (network !== `eip155:${chainId}`) {
      throw new Error(`Network ${network} does not match the node at ${options.rpcUrl} (chain id ${chainId}).`);
    }
  }

  const chain = devChainDefinition(chainId, options.rpcUrl);
  const pollingInterval = options.pollingIntervalMs ?? 50;
  // Node's fetch costs ~1 ms of CPU per JSON-RPC call; a settlement makes several.
  const fetchFn = createKeepAliveFetch();
  const publicClient = createDevPublicClient(chain, options.rpcUrl, { pollingIntervalMs: pollingInterval, fetchFn });
  const account = privateKeyToAccount(options.privateKey);
  const walletClient = createWalletClient({ account, chain, transport: devTransport(options.rpcUrl, undefined, fetchFn), pollingInterval });
  const adapter = createSignerAdapter({ publicClient, walletClient, onTransactionBroadcast: options.onTransactionBroadcast });
  const signer = toFacilitatorEvmSigner(adapter, { confirmationTimeoutMs: options.receiptTimeoutMs ?? 30_000 });
  const official = new x402Facilitator().register([...networks], new ExactEvmScheme(signer));

  const facilitator: FacilitatorBackend = {
    verify: (payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> =>
      withRpcObservation('verify', () => official.verify(payload, requirements)),
    settle: (payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> =>
      withRpcObservation('settle', () => official.settle(payload, requirements), (result) => result.transaction !== ''),
    getSupported: () => official.getSupported(),
  };
  return { facilitator, official, address: account.address, networks, chainId };
}
