import { describe, expect, it } from 'vitest';
import { base, baseSepolia, merchant } from '../../test/x402/fixtures';
import type { GatewayNetwork } from './network';
import { buildPaymentRequired, buildPaymentRequirements, findRequirementsMismatch, requirementsMatch } from './index';

const params = { network: base, payTo: merchant.toLowerCase(), amount: '10000', maxTimeoutSeconds: 300 };

describe('buildPaymentRequirements', () => {
  it('builds the exact EIP-3009 entry with checksummed addresses and the token domain', () => {
    expect(buildPaymentRequirements(params)).toEqual({
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '10000',
      asset: base.usdc.address,
      payTo: merchant,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    });
    expect(buildPaymentRequirements({ ...params, network: baseSepolia }).extra).toEqual({ name: 'USDC', version: '2' });
  });

  it('is deterministic to the byte, in the official key order, and frozen', () => {
    const first = buildPaymentRequirements(params);
    const again = buildPaymentRequirements({ ...params, payTo: merchant.toUpperCase().replace('0X', '0x'), network: { ...base, usdc: { ...base.usdc, address: base.usdc.address.toLowerCase() as `0x${string}` } } });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(Object.keys(first)).toEqual(['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds', 'extra']);
    expect(Object.isFrozen(first) && Object.isFrozen(first.extra)).toBe(true);
  });

  it('refuses amounts that are not positive atomic decimals', () => {
    for (const amount of ['0', '01', '-1', '1.5', '1e6', '', ' 1', (1n << 256n).toString()]) {
      expect(() => buildPaymentRequirements({ ...params, amount })).toThrow(RangeError);
    }
    expect(buildPaymentRequirements({ ...params, amount: ((1n << 256n) - 1n).toString() }).amount).toHaveLength(78);
  });

  it('refuses a bad timeout, payTo or network description', () => {
    for (const maxTimeoutSeconds of [0, -1, 1.5, Number.NaN]) expect(() => buildPaymentRequirements({ ...params, maxTimeoutSeconds })).toThrow(RangeError);
    expect(() => buildPaymentRequirements({ ...params, payTo: '0x1234' })).toThrow(TypeError);
    const broken: GatewayNetwork[] = [
      { ...base, caip2: 'eip155:1' },
      { ...base, chainId: 0, caip2: 'eip155:0' },
      { ...base, usdc: { ...base.usdc, address: 'usdc' as `0x${string}` } },
      { ...base, usdc: { ...base.usdc, name: '' } },
      { ...base, usdc: { ...base.usdc, version: '' } },
    ];
    for (const network of broken) expect(() => buildPaymentRequirements({ ...params, network })).toThrow(TypeError);
  });
});

describe('buildPaymentRequired', () => {
  const accepted = buildPaymentRequirements(params);
  const resource = { url: 'https://pay.example.com/receive/x?ref=r1', mimeType: 'application/json' };

  it('lays out x402Version, error, resource, accepts and extensions in order', () => {
    const extensions = { 'payment-identifier': { info: { required: false }, schema: {} } };
    const required = buildPaymentRequired({ resource, accepts: [accepted], extensions, error: 'PAYMENT-SIGNATURE header is required' });
    expect(Object.keys(required)).toEqual(['x402Version', 'error', 'resource', 'accepts', 'extensions']);
    expect(required).toEqual({ x402Version: 2, error: 'PAYMENT-SIGNATURE header is required', resource, accepts: [accepted], extensions });
    expect(Object.keys(buildPaymentRequired({ resource, accepts: [accepted] }))).toEqual(['x402Version', 'resource', 'accepts']);
  });

  it('refuses an empty accepts list and a resource without URL', () => {
    expect(() => buildPaymentRequired({ resource, accepts: [] })).toThrow(RangeError);
    expect(() => buildPaymentRequired({ resource: { url: '' }, accepts: [accepted] })).toThrow(RangeError);
  });
});

describe('findRequirementsMismatch / requirementsMatch', () => {
  const expected = buildPaymentRequirements(params);
  const echo = () => JSON.parse(JSON.stringify(expected)) as Record<string, unknown>;

  it('matches an echo regardless of key order and address letter case', () => {
    const reordered = Object.fromEntries(Object.entries(echo()).reverse());
    reordered['extra'] = { version: '2', name: 'USD Coin' };
    reordered['payTo'] = merchant.toLowerCase();
    reordered['asset'] = base.usdc.address.toUpperCase().replace('0X', '0x');
    expect(findRequirementsMismatch(reordered, expected)).toBeUndefined();
    expect(requirementsMatch(reordered, expected)).toBe(true);
  });

  it('names the first differing field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...echo(), amount: '10001' }, 'accepted.amount'],
      [{ ...echo(), maxTimeoutSeconds: '300' }, 'accepted.maxTimeoutSeconds'],
      [{ ...echo(), payTo: '0x0000000000000000000000000000000000000001' }, 'accepted.payTo'],
      [{ ...echo(), asset: 'USDC' }, 'accepted.asset'],
      [{ ...echo(), extra: { name: 'USDC', version: '2' } }, 'accepted.extra.name'],
      [{ ...echo(), extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2' } }, 'accepted.extra.assetTransferMethod'],
      [{ ...echo(), extra: [] }, 'accepted.extra'],
      [{ ...echo(), surprise: 1 }, 'accepted.surprise'],
      [{ ...echo(), scheme: undefined }, 'accepted.scheme'],
    ];
    for (const [accepted, path] of cases) {
      expect(findRequirementsMismatch(accepted, expected)).toBe(path);
      expect(requirementsMatch(accepted, expected)).toBe(false);
    }
    expect(findRequirementsMismatch('x', expected)).toBe('accepted');
    expect(findRequirementsMismatch(null, expected)).toBe('accepted');
  });
});
