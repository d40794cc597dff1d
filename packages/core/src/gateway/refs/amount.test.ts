import { describe, expect, it } from 'vitest';
import { maxAtomicAmount, parseAtomicAmount } from '@tollgate/core/gateway';

describe('atomic amounts', () => {
  it('accepts positive decimal integers below 2^256', () => {
    expect(parseAtomicAmount('1')).toBe(1n);
    expect(parseAtomicAmount('10000')).toBe(10_000n);
    expect(parseAtomicAmount(maxAtomicAmount.toString())).toBe(2n ** 256n - 1n);
  });

  it.each(['0', '00', '01', '-1', '+1', '1e3', '1.0', '1.5', ' 1', '1 ', '0x10', '', '١', (2n ** 256n).toString(), '9'.repeat(79)])('refuses %j', (text) => {
    expect(parseAtomicAmount(text)).toBeUndefined();
  });
});
