import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  buildRefSnapshot,
  createOrderRequestSchema,
  createRefundRequestSchema,
  isOrderId,
  isRefundId,
  listOrdersQuerySchema,
  orderMetadataSchema,
  rejectRefundRequestSchema,
  refundableOf,
} from '@tollgate/core/gateway';

const payTo = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const fails = (schema: v.GenericSchema, input: unknown) => !v.safeParse(schema, input).success;

describe('order mode schemas', () => {
  it('takes the POST /ref fields with a required amount, plus metadata', () => {
    expect(v.parse(createOrderRequestSchema, { payTo: payTo.toLowerCase(), network: 'base', amount: '1' })).toEqual({ payTo, network: 'base', asset: 'USDC', amount: '1' });
    expect(fails(createOrderRequestSchema, { payTo, network: 'base' })).toBe(true);
    expect(fails(createOrderRequestSchema, { payTo, network: 'base', amount: '1', unknown: 1 })).toBe(true);
  });

  it('keeps metadata as a fresh plain object in the order sent, and refuses what is not flat text', () => {
    const parsed = v.parse(orderMetadataSchema, JSON.parse('{"b":"1","a":"2","constructor":"c"}'));
    expect(Object.keys(parsed)).toEqual(['b', 'a', 'constructor']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(fails(orderMetadataSchema, JSON.parse('{"__proto__":"x"}'))).toBe(true);
    expect(fails(orderMetadataSchema, { a: 'x'.repeat(501) })).toBe(true);
    expect(fails(orderMetadataSchema, { a: 'line\nbreak' })).toBe(false);
    expect(fails(orderMetadataSchema, { a: 'zero\u200bwidth' })).toBe(true);
    for (const value of [1, true, null, ['a'], { a: 'b' }]) expect(fails(orderMetadataSchema, { d: value })).toBe(true);
    expect(fails(orderMetadataSchema, ['a'])).toBe(true);
  });

  it('bounds refund bodies and accepts an empty reject body', () => {
    expect(v.parse(createRefundRequestSchema, { amount: '5', expiresInSecs: 30 * 24 * 3600 })).toEqual({ amount: '5', expiresInSecs: 2_592_000 });
    expect(fails(createRefundRequestSchema, { amount: '5', expiresInSecs: 30 * 24 * 3600 + 1 })).toBe(true);
    expect(v.parse(rejectRefundRequestSchema, undefined)).toEqual({});
    expect(fails(rejectRefundRequestSchema, { reason: 'x', other: 1 })).toBe(true);
  });

  it('parses list queries strictly', () => {
    expect(v.parse(listOrdersQuerySchema, {})).toEqual({ limit: 50 });
    expect(v.parse(listOrdersQuerySchema, { status: 'expired', limit: '100' })).toEqual({ status: 'expired', limit: 100 });
    for (const query of [{ status: 'open' }, { limit: '101' }, { limit: '0' }, { pay_to: payTo }]) expect(fails(listOrdersQuerySchema, query)).toBe(true);
  });

  it('recognises ids, computes what is refundable, and builds snapshots in POST /ref key order', () => {
    expect([isOrderId('ord_00112233445566778899aabbccddeeff'), isOrderId('ord_00112233445566778899AABBCCDDEEFF'), isRefundId('rfd_00112233445566778899aabbccddeeff'), isRefundId('ord_00112233445566778899aabbccddeeff')]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(refundableOf({ status: 'partially_refunded', amount: '10', refunded: '3', refundReserved: '4' })).toBe('3');
    expect(refundableOf({ status: 'unpaid', amount: '10', refunded: '0', refundReserved: '0' })).toBe('0');
    const snapshot = buildRefSnapshot({ network: 'base', payTo, asset: 'USDC', amount: '1', resource: 'https://x/receive', invoiceId: 'I', description: 'D', expiresAt: 5 });
    expect(Object.keys(snapshot)).toEqual(['v', 'scheme', 'network', 'payTo', 'asset', 'amount', 'resource', 'invoiceId', 'description', 'mimeType', 'expiresAt']);
    expect(Object.keys(buildRefSnapshot({ network: 'base', payTo, asset: 'USDC', resource: 'r', expiresAt: 5 }))).toEqual(['v', 'scheme', 'network', 'payTo', 'asset', 'resource', 'mimeType', 'expiresAt']);
  });
});
