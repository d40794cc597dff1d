import { describe, expect, it } from 'vitest';
import { maxAtomicAmount } from '../refs/amount';
import { formatTokenAmount } from './usdc-amount';

/** Atomic USDC (6 decimals) and how people read it. */
const usdcFormatTable: readonly (readonly [string, string])[] = [
  ['1', '0.000001'],
  ['10', '0.00001'],
  ['10000', '0.01'],
  ['100000', '0.10'],
  ['1000000', '1.00'],
  ['2500000', '2.50'],
  ['1234567', '1.234567'],
  ['1234500000', '1,234.50'],
  ['999999999999', '999,999.999999'],
  ['1000000000000', '1,000,000.00'],
  ['0', '0.00'],
  ['000123', '0.000123'],
  [maxAtomicAmount.toString(), '115,792,089,237,316,195,423,570,985,008,687,907,853,269,984,665,640,564,039,457,584,007,913,129.639935'],
];

describe('formatTokenAmount', () => {
  it.each(usdcFormatTable)('formats %s atomic USDC as %s, exactly', (atomic, shown) => {
    expect(formatTokenAmount(atomic, 6)).toBe(shown);
    expect(formatTokenAmount(BigInt(atomic), 6)).toBe(shown);
  });

  it('handles other decimals, down to none', () => {
    expect(formatTokenAmount('1234', 0)).toBe('1,234');
    expect(formatTokenAmount('5', 1)).toBe('0.5');
    expect(formatTokenAmount('1000000000000000000', 18)).toBe('1.00');
  });

  it('refuses what is not an atomic amount rather than guessing', () => {
    for (const bad of ['', '-1', '1.5', '1e6', ' 1', '0x10']) expect(() => formatTokenAmount(bad, 6), bad).toThrow(RangeError);
    expect(() => formatTokenAmount('1', -1)).toThrow(RangeError);
    expect(() => formatTokenAmount('1', 1.5)).toThrow(RangeError);
  });
});
