import { isAddressEqual, recoverMessageAddress, size, type Address, type Hex } from 'viem';
import { chainRead } from '../../chain/errors';
import type { GatewayNetwork } from '../networks';
import type { RpcClients } from '../rpc-clients';

/** How a signature proved control of an address: recovered from ECDSA, or approved by the contract. */
export type WalletSignatureProof = 'eoa' | 'erc1271';

/** What {@link WalletSignatureVerifier.verifyMessage} checks. */
export interface VerifyWalletMessageParams {
  readonly network: GatewayNetwork;
  readonly address: Address;
  /** The text that was signed with EIP-191 `personal_sign`. */
  readonly message: string;
  readonly signature: Hex;
}

/**
 * Port: decides whether `signature` is `address`'s EIP-191 signature of `message`.
 *
 * Contract: returns the proof kind when valid and `null` when not; never returns `null` because a node
 * was unreachable (it throws a `ChainReadError`, code `rpc_unavailable`, instead), so an outage never
 * looks like a forged signature.
 */
export interface WalletSignatureVerifier {
  verifyMessage(params: VerifyWalletMessageParams): Promise<WalletSignatureProof | null>;
}

/** Options of {@link createViemWalletSignatureVerifier}. */
export interface ViemWalletSignatureVerifierOptions {
  /** Clients for networks with an RPC URL; without one, only EOA signatures can be verified there. */
  readonly rpc?: RpcClients;
  /** Deadline of each chain read in milliseconds. Default 5 000. */
  readonly timeoutMs?: number;
}

/**
 * The default {@link WalletSignatureVerifier}, on viem:
 * 1. a 65-byte signature whose recovered signer is `address` is an EOA proof (no RPC needed);
 * 2. otherwise, when the network has an RPC client, `publicClient.verifyMessage` asks the chain: an
 *    ERC-1271 contract wallet (or an ERC-6492 wrapped signature of a not yet deployed one) approves it;
 * 3. otherwise the signature is not valid.
 *
 * viem reports a failed `eth_call` as "invalid", so a negative on-chain answer is confirmed with an
 * `eth_chainId` probe: when the node does not answer, the verifier throws `rpc_unavailable`.
 *
 * @param options - RPC clients and the chain-read deadline.
 * @returns The verifier.
 * @example
 * ```ts
 * import { createNetworkRegistry, createRpcClients, createViemWalletSignatureVerifier } from '@tollgate/core';
 * const networks = createNetworkRegistry();
 * const verifier = createViemWalletSignatureVerifier({ rpc: createRpcClients(networks, { base: 'https://mainnet.base.org' }) });
 * const proof = await verifier.verifyMessage({ network: networks.require('base'), address, message, signature });
 * ```
 */
export function createViemWalletSignatureVerifier(options: ViemWalletSignatureVerifierOptions = {}): WalletSignatureVerifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    async verifyMessage({ network, address, message, signature }) {
      if (size(signature) === 65) {
        try {
          if (isAddressEqual(await recoverMessageAddress({ message, signature }), address)) return 'eoa';
        } catch {
          // Not a recoverable ECDSA signature: maybe a contract wallet's.
        }
      }
      const client = options.rpc?.forNetwork(network.name);
      if (client === undefined) return null;
      if (await chainRead('eth_call', timeoutMs, () => client.verifyMessage({ address, message, signature }))) return 'erc1271';
      await chainRead('eth_chainId', timeoutMs, () => client.getChainId());
      return null;
    },
  };
}
