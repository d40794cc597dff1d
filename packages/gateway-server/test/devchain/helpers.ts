// Shared helpers for the dev-chain tests: EIP-3009 signing and revert-reason extraction.
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  toHex,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type LocalAccount,
  type WalletClient,
  type Transport,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devTransport, type TokenDomain } from '@tollgate/gateway-server/devchain';
import { transferWithAuthorizationTypes } from '@tollgate/core';

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
