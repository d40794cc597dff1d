/**
 * ABI fragments of ERC-20 and EIP-3009 (USDC) that Tollgate reads: the events that prove a settlement
 * and the functions the x402 `exact` scheme calls. Typed `as const` for viem, e.g.
 * `client.getLogs({ address: usdc, event: transferEvent, args: { to: payTo } })`.
 */

/**
 * ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)`.
 *
 * @example
 * ```ts
 * import { transferEvent } from '@tollgate/core/chain';
 * const logs = await client.getLogs({ address: usdc, event: transferEvent, args: { to: payTo }, fromBlock, toBlock });
 * ```
 */
export const transferEvent = {
  type: 'event',
  name: 'Transfer',
  inputs: [
    { name: 'from', type: 'address', indexed: true },
    { name: 'to', type: 'address', indexed: true },
    { name: 'value', type: 'uint256', indexed: false },
  ],
} as const;

/**
 * EIP-3009 `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)`: emitted when an
 * authorization executes.
 *
 * @example
 * ```ts
 * import { authorizationUsedEvent } from '@tollgate/core/chain';
 * const logs = await client.getLogs({ address: usdc, event: authorizationUsedEvent, args: { authorizer: payer, nonce } });
 * ```
 */
export const authorizationUsedEvent = {
  type: 'event',
  name: 'AuthorizationUsed',
  inputs: [
    { name: 'authorizer', type: 'address', indexed: true },
    { name: 'nonce', type: 'bytes32', indexed: true },
  ],
} as const;

/**
 * EIP-3009 `AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)`: emitted by
 * `cancelAuthorization`; the nonce can then never execute.
 *
 * @example
 * ```ts
 * import { authorizationCanceledEvent } from '@tollgate/core/chain';
 * const logs = await client.getLogs({ address: usdc, event: authorizationCanceledEvent, args: { authorizer: payer } });
 * ```
 */
export const authorizationCanceledEvent = {
  type: 'event',
  name: 'AuthorizationCanceled',
  inputs: [
    { name: 'authorizer', type: 'address', indexed: true },
    { name: 'nonce', type: 'bytes32', indexed: true },
  ],
} as const;

/**
 * The EIP-3009 + ERC-20 surface Tollgate uses: the events above, `transferWithAuthorization` (v,r,s
 * form, as USDC's FiatTokenV2), `authorizationState` and `balanceOf`.
 *
 * @example
 * ```ts
 * import { eip3009Abi } from '@tollgate/core/chain';
 * const used = await client.readContract({ address: usdc, abi: eip3009Abi, functionName: 'authorizationState', args: [payer, nonce] });
 * ```
 */
export const eip3009Abi = [
  transferEvent,
  authorizationUsedEvent,
  authorizationCanceledEvent,
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'account', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;
