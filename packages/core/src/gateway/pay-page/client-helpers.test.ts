import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { hexEncode } from '../../crypto/hex';
import { transferWithAuthorizationDigest } from '../../x402/eip3009';
import { decodePaymentSignatureHeader } from '../../x402/headers';
import { buildPaymentRequirements } from '../../x402/requirements';
import { createNetworkRegistry } from '../networks';
import { maxAtomicAmount } from '../refs/amount';
import { payClientHelperNames, payClientHelpersSource } from './client-helpers';
import { formatTokenAmount } from './usdc-amount';

// The helpers exactly as the browser gets them, evaluated in this process (Node has the same globals).
type Helpers = Record<(typeof payClientHelperNames)[number], (...args: never[]) => unknown>;
const helpers = new Function(`'use strict';\n${payClientHelpersSource}\nreturn { ${payClientHelperNames.join(', ')} };`)() as Helpers;
const call = <T>(name: (typeof payClientHelperNames)[number], ...args: unknown[]): T => (helpers[name] as (...a: unknown[]) => T)(...args);

const base = createNetworkRegistry().require('base');
const payTo = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

describe('pay page client helpers: amounts', () => {
  it('format exactly as the server does, edge values and a thousand random ones', () => {
    const values = ['0', '1', '10', '100000', '1000000', '1234500000', '999999999999', maxAtomicAmount.toString()];
    for (let index = 0; index < 1000; index++) values.push(BigInt(`0x${hexEncode(crypto.getRandomValues(new Uint8Array(1 + (index % 31))))}`).toString());
    for (const value of values) expect(call('formatTokenAmount', value, 6), value).toBe(formatTokenAmount(value, 6));
  });

  it('parse what the payer types into atomic units without floats', () => {
    const cases: [string, string][] = [
      ['1', '1000000'],
      ['12.5', '12500000'],
      [' 0.000001 ', '1'],
      ['.5', '500000'],
      ['7.', '7000000'],
      ['0012.340000', '12340000'],
      ['0.1', '100000'],
      ['1234567.891011', '1234567891011'],
    ];
    for (const [typed, atomic] of cases) expect(call('parseTokenInput', typed, 6), typed).toEqual({ ok: true, atomic });
  });

  it('refuse bad amounts with a sentence saying what to type', () => {
    const refusals: [string, RegExp][] = [
      ['', /Enter the amount/],
      ['1,5', /Use a dot/],
      ['1,000.00', /no thousands separators/],
      ['1.1234567', /at most 6 digits after the dot/],
      ['0', /greater than zero/],
      ['0.000000', /greater than zero/],
      ['-1', /digits with an optional decimal dot/],
      ['1e6', /digits with an optional decimal dot/],
      ['.', /digits with an optional decimal dot/],
      ['1.2.3', /digits with an optional decimal dot/],
      ['١٢', /digits with an optional decimal dot/],
      [`${maxAtomicAmount}`, /too large/],
    ];
    for (const [typed, message] of refusals) {
      const result = call<{ ok: boolean; message: string }>('parseTokenInput', typed, 6);
      expect(result.ok, typed).toBe(false);
      expect(result.message, typed).toMatch(message);
    }
  });
});

describe('pay page client helpers: the payment', () => {
  it('encode the payload as standard base64 of UTF-8 JSON that the gateway decodes, and decode base64url too', () => {
    const accepted = buildPaymentRequirements({ network: base, payTo, amount: '10000', maxTimeoutSeconds: 300 });
    const authorization = call('buildAuthorization', accepted, payTo, 1_800_000_000, `0x${'ab'.repeat(32)}`);
    const resource = { url: 'https://pay.example.com/receive/x?ref=y', description: 'Café ☕ — 😀', mimeType: 'application/json' };
    const payload = call('paymentPayload', { resource }, accepted, authorization, `0x${'11'.repeat(65)}`, 'pay_0123456789abcdef');
    const encoded = call<string>('encodeJsonBase64', payload);
    expect(encoded).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodePaymentSignatureHeader(encoded)).toEqual(payload);
    expect(call('decodeJsonBase64', encoded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))).toEqual(payload);
  });

  it('build the EIP-3009 typed data whose digest is the one the gateway verifies', async () => {
    const accepted = buildPaymentRequirements({ network: base, payTo, amount: '2500000', maxTimeoutSeconds: 300 });
    const payer = privateKeyToAccount(generatePrivateKey());
    const nonce = call<`0x${string}`>('randomHex', 32);
    expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
    const authorization = call<Record<string, string>>('buildAuthorization', accepted, payer.address, 1_800_000_000, nonce);
    expect(authorization).toEqual({ from: payer.address, to: payTo, value: '2500000', validAfter: '1799999400', validBefore: '1800000300', nonce });
    // What eth_signTypedData_v4 receives: a JSON string.
    const typedData = JSON.parse(JSON.stringify(call('transferTypedData', accepted, base.chainId, authorization)));
    const { EIP712Domain: _domainType, ...types } = typedData.types;
    const message = { ...typedData.message, value: BigInt(authorization.value!), validAfter: BigInt(authorization.validAfter!), validBefore: BigInt(authorization.validBefore!) };
    const digest = hashTypedData({ ...typedData, types, message });
    expect(digest).toBe(`0x${hexEncode(transferWithAuthorizationDigest(base, authorization as never))}`);
    const signature = await payer.signTypedData({ ...typedData, types, message });
    expect(await recoverTypedDataAddress({ ...typedData, types, message, signature })).toBe(payer.address);
  });

  it('sign by the payment service\'s clock from its Date header, and by the device clock only without one', () => {
    const device = Date.parse('2026-03-01T12:15:00.700Z');
    expect(call('paymentNowSeconds', 'Sun, 01 Mar 2026 12:00:07 GMT', device)).toBe(Date.parse('2026-03-01T12:00:07Z') / 1000);
    expect(call('paymentNowSeconds', null, device)).toBe(Math.floor(device / 1000));
    expect(call('paymentNowSeconds', 'not a date', device)).toBe(Math.floor(device / 1000));
  });

  it('refuse terms that differ from what the page shows', () => {
    const accepted = buildPaymentRequirements({ network: base, payTo, amount: '10000', maxTimeoutSeconds: 300 });
    const expected = { chainId: 8453, payTo: payTo.toLowerCase(), amount: '10000' };
    expect(call('checkRequirements', accepted, expected)).toBeNull();
    for (const changed of [{ payTo: '0x0000000000000000000000000000000000000001' }, { amount: '10001' }, { network: 'eip155:1' }, { scheme: 'upto' }, { extra: {} }, { maxTimeoutSeconds: 0 }]) {
      expect(call('checkRequirements', { ...accepted, ...changed }, expected), JSON.stringify(changed)).toMatch(/differ from this page/);
    }
    expect(call('checkRequirements', undefined, expected)).toMatch(/differ/);
  });

  it('carry the payment-identifier so that a resent header is answered from the record', () => {
    const payload = call<Record<string, unknown>>('paymentPayload', { resource: { url: 'u' } }, { amount: '1' }, { from: '0x' }, '0xsig', 'pay_0123456789abcdef');
    expect(payload).toEqual({
      x402Version: 2,
      resource: { url: 'u' },
      accepted: { amount: '1' },
      payload: { authorization: { from: '0x' }, signature: '0xsig' },
      extensions: { 'payment-identifier': { info: { id: 'pay_0123456789abcdef' } } },
    });
  });
});

describe('pay page client helpers: sentences', () => {
  const envelope = (code: string, details: Record<string, unknown> = {}, message = 'Raw gateway text.') => ({ x402Version: 2, error: { code, message, details } });

  it('turn refusals into sentences, never JSON', () => {
    const cases: [number, unknown, RegExp][] = [
      [410, envelope('ref_expired'), /has expired/],
      [410, envelope('ref_revoked'), /cancelled this payment link/],
      [410, envelope('payto_revoked'), /no longer accepts payments/],
      [402, envelope('payment_verification_failed', { field: 'facilitator', reason: 'insufficient_funds' }), /does not hold enough USDC on Base/],
      [402, envelope('settlement_failed', { reason: 'invalid_exact_evm_payload_authorization_valid_before' }), /no longer valid/],
      [402, envelope('settlement_failed', { reason: 'transaction_failed' }), /did not go through/],
      [402, envelope('payment_verification_failed', { reason: 'invalid_signature' }), /could not verify/],
      [402, envelope('payment_verification_failed', { field: 'authorization.validBefore', reason: 'too_late' }), /time on your device differs/],
      [402, envelope('payment_verification_failed', { field: 'authorization.validAfter', reason: 'not_yet_valid' }), /Check the date and time settings/],
      [429, envelope('rate_limited', { retryAfterSeconds: 7 }), /Wait 7 seconds/],
      [503, envelope('facilitator_unavailable'), /unavailable right now/],
      [400, envelope('invalid_request', { field: 'amount' }), /refused this amount/],
      [400, envelope('invalid_request', { field: 'ref' }), /refused the payment: Raw gateway text\./],
      [502, null, /unexpected status \(502\)/],
      [500, '<html>', /unexpected status \(500\)/],
    ];
    for (const [status, body, sentence] of cases) {
      const text = call<string>('describeGatewayError', status, body, 'Base');
      expect(text, JSON.stringify(body)).toMatch(sentence);
      expect(text).not.toMatch(/[{}]/);
    }
  });

  it('name the EIP-1193 wallet errors', () => {
    expect(call('describeWalletError', { code: 4001, message: 'User rejected the request.' }, 'Base')).toBe('You declined the request in your wallet. Nothing was paid.');
    expect(call('describeWalletError', { code: -32002 }, 'Base')).toMatch(/already has a request waiting/);
    expect(call('describeWalletError', { code: 4901 }, 'Base')).toMatch(/not connected to Base/);
    expect(call('describeWalletError', { code: -32603, message: 'x'.repeat(500) }, 'Base')).toHaveLength('Your wallet reported a problem: '.length + 200);
    expect(call('walletErrorCode', new Error('plain'))).toBeUndefined();
  });

  it('resend the same signed header only while the outcome is unknown', () => {
    expect([408, 429, 500, 502, 503, 504].map((status) => call('isRetryable', status))).toEqual([true, true, true, true, true, true]);
    expect([200, 400, 402, 404, 409, 410].map((status) => call('isRetryable', status))).toEqual([false, false, false, false, false, false]);
  });
});
