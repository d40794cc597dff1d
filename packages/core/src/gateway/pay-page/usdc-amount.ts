/**
 * Formats an atomic token amount for people: the integer part grouped by thousands with commas, then at
 * least two and at most `decimals` fraction digits (trailing zeros past the second dropped). Pure string
 * and bigint arithmetic, so `2^256 - 1` atomic units print exactly: a float would round them.
 *
 * The pay page's client script formats with the same rules (its test compares both on a table).
 *
 * @param atomic - A non-negative atomic amount: a decimal string or a bigint.
 * @param decimals - The token's decimals (6 for USDC).
 * @returns The amount, e.g. `"1,234.50"`.
 * @throws RangeError when `atomic` is not a non-negative integer or `decimals` not an integer 0–77.
 * @example
 * ```ts
 * import { formatTokenAmount } from '@tollgate/core/gateway';
 * formatTokenAmount('10000', 6); // '0.01'
 * formatTokenAmount('1234500000', 6); // '1,234.50'
 * formatTokenAmount('1', 6); // '0.000001'
 * ```
 */
export function formatTokenAmount(atomic: string | bigint, decimals: number): string {
  const digits = typeof atomic === 'bigint' ? atomic.toString() : atomic;
  if (!/^[0-9]+$/.test(digits)) throw new RangeError(`Not a non-negative atomic amount: ${String(atomic).slice(0, 80)}.`);
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) throw new RangeError(`Token decimals must be an integer from 0 to 77, got ${decimals}.`);
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals).replace(/^0+(?=[0-9])/, '');
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '').padEnd(Math.min(2, decimals), '0');
  const grouped = whole.replace(/\B(?=([0-9]{3})+$)/g, ',');
  return fraction === '' ? grouped : `${grouped}.${fraction}`;
}
