import { describe, expect, it } from 'vitest';
import { base64UrlEncode, utf8Encode } from '../crypto';
import { renderGatewayError } from '../errors';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodeX402Header,
  X402HeaderError,
  X402_HEADER_MAX_BYTES,
  X402_HEADER_MAX_DEPTH,
} from './index';

const accepted = {
  scheme: 'exact',
  network: 'eip155:8453',
  amount: '10000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
};
const payload = {
  x402Version: 2,
  resource: { url: 'https://pay.example.com/receive/0x2096?ref=r1' },
  accepted,
  payload: { signature: '0xabcd', authorization: { from: '0x1', to: '0x2' } },
  extensions: { 'payment-identifier': { info: { required: false, id: 'pay_0123456789abcdef' } } },
};

/** Base64 of arbitrary UTF-8 text, standard alphabet, built without the code under test. */
const b64 = (text: string) => btoa(String.fromCharCode(...utf8Encode(text)));

function failure(run: () => unknown): X402HeaderError {
  try {
    run();
  } catch (error) {
    if (error instanceof X402HeaderError) return error;
    throw error;
  }
  throw new Error('expected an X402HeaderError');
}

describe('encodeX402Header', () => {
  it('emits padded standard base64 of the UTF-8 JSON', () => {
    const value = { text: 'ü?>?>', n: 1 }; // bytes that encode to '+' and '/' in base64
    const header = encodeX402Header(value);
    expect(header).toBe(b64(JSON.stringify(value)));
    expect(header).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(header).toMatch(/[+/]/);
  });
});

describe('decodePaymentSignatureHeader', () => {
  it('round-trips a payload and keeps every key the client sent', () => {
    const decoded = decodePaymentSignatureHeader(encodeX402Header({ ...payload, accepted: { ...accepted, surprise: true } }));
    expect(decoded).toEqual({ ...payload, accepted: { ...accepted, surprise: true } });
  });

  it('accepts base64url (unpadded) and standard base64 alike', () => {
    const json = JSON.stringify({ ...payload, resource: { url: 'https://x/?q=ü?>?>' } });
    const url = base64UrlEncode(utf8Encode(json));
    expect(url).toMatch(/[-_]/);
    expect(decodePaymentSignatureHeader(url)).toEqual(decodePaymentSignatureHeader(b64(json)));
  });

  it('ignores whitespace around the header value', () => {
    expect(decodePaymentSignatureHeader(`  ${encodeX402Header(payload)} `)).toEqual(payload);
  });

  it('reads a null extensions/resource as absent, like the official schema', () => {
    const decoded = decodePaymentSignatureHeader(encodeX402Header({ ...payload, extensions: null, resource: null }));
    expect(decoded.extensions).toBeUndefined();
    expect(decoded.resource).toBeUndefined();
  });

  it('refuses a missing or empty header (invalid_request)', () => {
    for (const value of [undefined, '', '   ']) {
      const error = failure(() => decodePaymentSignatureHeader(value));
      expect([error.reason, error.code, error.details['header']]).toEqual(['missing', 'invalid_request', 'PAYMENT-SIGNATURE']);
    }
  });

  it('refuses a header over the cap before decoding it', () => {
    const big = encodeX402Header({ ...payload, pad: 'x'.repeat(X402_HEADER_MAX_BYTES) });
    expect(failure(() => decodePaymentSignatureHeader(big)).reason).toBe('too_large');
    expect(failure(() => decodePaymentSignatureHeader(encodeX402Header(payload), { maxBytes: 100 })).details).toMatchObject({ reason: 'too_large', maxBytes: 100 });
  });

  it('refuses text that is not base64', () => {
    for (const value of ['%%%%', 'ab+c-d==', 'a===', 'ab cd']) {
      const error = failure(() => decodePaymentSignatureHeader(value));
      expect([error.reason, error.code]).toEqual(['invalid_base64', 'invalid_request']);
    }
  });

  it('refuses bytes that are not UTF-8', () => {
    const header = btoa(String.fromCharCode(0x7b, 0xc0, 0xaf, 0x7d));
    expect(failure(() => decodePaymentSignatureHeader(header)).reason).toBe('invalid_utf8');
  });

  it('refuses text that is not JSON', () => {
    expect(failure(() => decodePaymentSignatureHeader(b64('{"x402Version":2,'))).reason).toBe('invalid_json');
  });

  it('refuses arrays and objects nested deeper than the limit (invalid_request), before any recursive consumer sees them', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const withExtension = (value: string) => b64(JSON.stringify({ ...payload, extensions: { deep: '§' } }).replace('"§"', value));
    // The payload object and `extensions` are two levels: the extension may nest the rest.
    expect(decodePaymentSignatureHeader(withExtension(nested(X402_HEADER_MAX_DEPTH - 2))).extensions).toHaveProperty('deep');
    for (const depth of [X402_HEADER_MAX_DEPTH - 1, 3_000]) {
      const error = failure(() => decodePaymentSignatureHeader(withExtension(nested(depth))));
      expect([error.reason, error.code, error.details['maxDepth']]).toEqual(['too_deep', 'invalid_request', X402_HEADER_MAX_DEPTH]);
      expect(renderGatewayError(error).status).toBe(400);
    }
    const deepObject = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    expect(failure(() => decodePaymentResponseHeader(b64(deepObject))).reason).toBe('too_deep');
  });

  it('refuses JSON that is not an object (payment_verification_failed)', () => {
    for (const value of ['[1]', '"x"', '2', 'null']) {
      const error = failure(() => decodePaymentSignatureHeader(b64(value)));
      expect([error.reason, error.code]).toEqual(['invalid_shape', 'payment_verification_failed']);
    }
  });

  it('refuses x402Version 1 and a missing version', () => {
    const v1 = failure(() => decodePaymentSignatureHeader(encodeX402Header({ x402Version: 1, scheme: 'exact', network: 'base', payload: {} })));
    expect([v1.reason, v1.code, v1.details['x402Version']]).toEqual(['unsupported_version', 'payment_verification_failed', 1]);
    const { x402Version: _dropped, ...unversioned } = payload;
    expect(failure(() => decodePaymentSignatureHeader(encodeX402Header(unversioned))).details).toMatchObject({ reason: 'unsupported_version', x402Version: null });
    expect(failure(() => decodePaymentSignatureHeader(encodeX402Header({ ...payload, x402Version: '2' }))).reason).toBe('unsupported_version');
  });

  it('refuses a wrong shape and names the first offending field', () => {
    const cases: [unknown, string][] = [
      [{ ...payload, accepted: undefined }, 'accepted'],
      [{ ...payload, accepted: { ...accepted, amount: '' } }, 'accepted.amount'],
      [{ ...payload, accepted: { ...accepted, network: 'base' } }, 'accepted.network'],
      [{ ...payload, accepted: { ...accepted, maxTimeoutSeconds: 0 } }, 'accepted.maxTimeoutSeconds'],
      [{ ...payload, payload: 'sig' }, 'payload'],
      [{ ...payload, resource: { url: '' } }, 'resource.url'],
      [{ ...payload, extensions: [] }, 'extensions'],
    ];
    for (const [value, field] of cases) {
      const error = failure(() => decodePaymentSignatureHeader(encodeX402Header(value)));
      expect({ reason: error.reason, field: error.details['field'] }).toEqual({ reason: 'invalid_shape', field });
    }
  });

  it('never puts the header value into the error', () => {
    const header = encodeX402Header({ ...payload, accepted: 'secret-looking' });
    const error = failure(() => decodePaymentSignatureHeader(header));
    expect(JSON.stringify(renderGatewayError(error))).not.toContain(header.slice(0, 20));
    expect(renderGatewayError(error)).toMatchObject({ status: 402, body: { error: { code: 'payment_verification_failed', details: { reason: 'invalid_shape' } } } });
    expect(renderGatewayError(failure(() => decodePaymentSignatureHeader('%'))).status).toBe(400);
  });
});

describe('decodePaymentRequiredHeader', () => {
  const required = { x402Version: 2, error: 'PAYMENT-SIGNATURE header is required', resource: { url: 'https://x/r' }, accepts: [accepted], extensions: {} };

  it('round-trips a PaymentRequired', () => {
    expect(decodePaymentRequiredHeader(encodeX402Header(required))).toEqual(required);
  });

  it('refuses an empty accepts list and a wrong version', () => {
    expect(failure(() => decodePaymentRequiredHeader(encodeX402Header({ ...required, accepts: [] }))).details).toMatchObject({ reason: 'invalid_shape', field: 'accepts', header: 'PAYMENT-REQUIRED' });
    expect(failure(() => decodePaymentRequiredHeader(encodeX402Header({ ...required, x402Version: 1 }))).reason).toBe('unsupported_version');
  });
});

describe('decodePaymentResponseHeader', () => {
  const settle = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453', payer: accepted.payTo };

  it('accepts the official shape without x402Version and Tollgate bodies with version 2', () => {
    expect(decodePaymentResponseHeader(encodeX402Header(settle))).toEqual(settle);
    const ours = { x402Version: 2, ...settle, receiptStatus: 'issued' };
    expect(decodePaymentResponseHeader(encodeX402Header(ours))).toEqual(ours);
  });

  it('refuses another version and a missing transaction', () => {
    expect(failure(() => decodePaymentResponseHeader(encodeX402Header({ x402Version: 1, ...settle }))).reason).toBe('unsupported_version');
    const { transaction: _t, ...noTransaction } = settle;
    expect(failure(() => decodePaymentResponseHeader(encodeX402Header(noTransaction))).details['field']).toBe('transaction');
  });
});
