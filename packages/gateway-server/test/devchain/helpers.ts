// Shared helpers for the dev-chain tests: the chain + facilitator fixture, EIP-3009 signing and
// revert-reason extraction.
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  toHex,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type LocalAccount,
  type WalletClient,
  type Transport,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import {
  createDevPublicClient,
  createLocalFacilitator,
  devChainDefinition,
  devTransport,
  setupDevChain,
  startAnvil,
  startFacilitatorServer,
  type AnvilInstance,
  type DevStack,
  type DevChainSetup,
  type FacilitatorServer,
  type LocalFacilitator,
  type TokenDomain,
} from '@tollgate/gateway-server/devchain';
import { transferWithAuthorizationTypes } from '@tollgate/core/x402';
import { expect } from 'vitest';

/** The fields of a TransferWithAuthorization / ReceiveWithAuthorization message. */
export type Authorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

// The same fields under both primary types: core's single definition of them.
const authorizationFields = transferWithAuthorizationTypes['TransferWithAuthorization']!;

/** A fresh random 32-byte nonce. */
export function randomNonce(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** A fresh account with no ETH and no tokens. */
export function freshAccount(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** Signs an EIP-3009 authorization (transfer or receive) with viem's `signTypedData`. */
export function signAuthorization(
  signer: LocalAccount,
  domain: TokenDomain,
  message: Authorization,
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
): Promise<Hex> {
  return signer.signTypedData({
    domain,
    types: primaryType === 'TransferWithAuthorization' ? { TransferWithAuthorization: authorizationFields } : { ReceiveWithAuthorization: authorizationFields },
    primaryType,
    message,
  });
}

/** Signs an EIP-3009 CancelAuthorization. */
export function signCancellation(signer: LocalAccount, domain: TokenDomain, authorizer: Address, nonce: Hex): Promise<Hex> {
  return signer.signTypedData({
    domain,
    types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
    primaryType: 'CancelAuthorization',
    message: { authorizer, nonce },
  });
}

/** A wallet client for `account` on the dev chain. */
export function walletFor(account: Account, chain: Chain, rpcUrl: string): WalletClient<Transport, Chain, Account> {
  return createWalletClient({ account, chain, transport: devTransport(rpcUrl), pollingInterval: 50 });
}

/** The Solidity revert string of a failed call or simulation, or the error message when there is none. */
export async function revertReason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BaseError) {
      const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
      if (reverted instanceof ContractFunctionRevertedError && reverted.reason) return reverted.reason;
      return error.shortMessage;
    }
    return String(error);
  }
  throw new Error('expected the call to revert, but it succeeded');
}

/** An anvil chain set up for x402, with the self-hosted facilitator listening over HTTP. */
export interface FacilitatorStack {
  anvil: AnvilInstance;
  setup: DevChainSetup;
  local: LocalFacilitator;
  server: FacilitatorServer;
  chain: ReturnType<typeof createDevPublicClient>;
  stop(): Promise<void>;
}

/** Starts anvil, installs the test USDC and Multicall3, and serves the local facilitator. */
export async function startFacilitatorStack(): Promise<FacilitatorStack> {
  const anvil = await startAnvil();
  const setup = await setupDevChain({ rpcUrl: anvil.rpcUrl });
  const chain = createDevPublicClient(devChainDefinition(setup.chainId, anvil.rpcUrl), anvil.rpcUrl);
  const local = await createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey: setup.facilitator.privateKey, networks: [setup.network] });
  const server = await startFacilitatorServer({ facilitator: local.facilitator });
  return {
    anvil,
    setup,
    local,
    server,
    chain,
    async stop() {
      await server.stop();
      await anvil.stop();
    },
  };
}

/** The official x402 client for `payer`, allowed to spend the dev chain's (non-default) test USDC. */
export function officialPayerClient(setup: DevChainSetup, payer: LocalAccount): x402Client {
  return x402Client.fromConfig({
    schemes: [{ network: setup.network, client: new ExactEvmScheme(payer) }],
    spendControls: { allowedAssets: [{ network: setup.network, asset: setup.usdc.address }] },
  });
}

/**
 * Pays `amount` to `payTo` once from the stack's payer through its facilitator over HTTP (x402 `exact`,
 * settled), expecting success: the authorization nonce and the settlement transaction.
 *
 * @example
 * ```ts
 * const { transaction } = await settleThroughStack(stack, merchant);
 * ```
 */
export async function settleThroughStack(stack: DevStack, payTo: Address, amount = '250000'): Promise<{ nonce: Hex; transaction: Hash }> {
  const requirements: PaymentRequirements = {
    scheme: 'exact', network: stack.network, amount, asset: stack.usdc.address, payTo, maxTimeoutSeconds: 120,
    extra: { name: stack.usdc.domain.name, version: stack.usdc.domain.version },
  };
  const payer = x402Client.fromConfig({
    schemes: [{ network: stack.network, client: new ExactEvmScheme(privateKeyToAccount(stack.payer.privateKey)) }],
    spendControls: { allowedAssets: [{ network: stack.network, asset: stack.usdc.address }] },
  });
  const payload = await payer.createPaymentPayload({ x402Version: 2, resource: { url: 'http://127.0.0.1/demo' }, accepts: [requirements] });
  const settled = await new HTTPFacilitatorClient({ url: stack.facilitatorUrl }).settle(payload, requirements);
  expect(settled.success).toBe(true);
  return { nonce: (payload.payload.authorization as { nonce: Hex }).nonce, transaction: settled.transaction as Hash };
}
