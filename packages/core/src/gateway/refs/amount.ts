/** The largest atomic amount: `2^256 - 1`, the largest ERC-20 transfer value. */
export const maxAtomicAmount = 2n ** 256n - 1n;

const atomicPattern = /^[1-9][0-9]{0,77}$/;

/**
 * Parses a positive atomic amount: decimal digits only, no sign, exponent, fraction, whitespace or
 * leading zero, below `2^256`. `"10000"` is 0.01 USDC (6 decimals).
 *
 * @param text - The amount as sent.
 * @returns The amount, or `undefined` when `text` is not one.
 * @example
 * ```ts
 * import { parseAtomicAmount } from '@tollgate/core/gateway';
 * parseAtomicAmount('10000'); // 10000n
 * parseAtomicAmount('1e4'); // undefined
 * ```
 */
export function parseAtomicAmount(text: string): bigint | undefined {
  if (!atomicPattern.test(text)) return undefined;
  const amount = BigInt(text);
  return amount <= maxAtomicAmount ? amount : undefined;
}
