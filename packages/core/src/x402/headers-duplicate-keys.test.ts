import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../crypto';
import { renderGatewayError } from '../errors';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, decodePaymentSignatureHeader, encodeX402Header, X402HeaderError } from './index';

/** Base64 of arbitrary UTF-8 text, standard alphabet, built without the code under test. */
const b64 = (text: string) => btoa(String.fromCharCode(...utf8Encode(text)));

const accepted = {
  scheme: 'exact',
  network: 'eip155:8453',
  amount: '10000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
};
const authorization = { from: '0x1', to: accepted.payTo, value: '10000', validAfter: '0', validBefore: '9999999999', nonce: `0x${'ab'.repeat(32)}` };
const payload = { x402Version: 2, resource: { url: 'https://pay.example.com/receive/x?ref=r1' }, accepted, payload: { signature: '0xabcd', authorization } };

function failure(run: () => unknown): X402HeaderError {
  try {
    run();
  } catch (error) {
    if (error instanceof X402HeaderError) return error;
    throw error;
  }
  throw new Error('expected an X402HeaderError');
}

describe('x402 headers with a repeated JSON key', () => {
  it('refuses a PAYMENT-SIGNATURE whose authorization carries two values, as invalid_json (400 invalid_request)', () => {
    const json = JSON.stringify(payload).replace('"value":"10000"', '"value":"1","value":"10000"');
    expect(JSON.parse(json)).toEqual(payload); // JSON.parse alone would keep the last one silently
    const error = failure(() => decodePaymentSignatureHeader(b64(json)));
    expect(error.code).toBe('invalid_request');
    expect(error.reason).toBe('invalid_json');
    expect(error.details).toEqual({ header: 'PAYMENT-SIGNATURE', reason: 'invalid_json' });
    expect(error.message).toBe(`The PAYMENT-SIGNATURE header's JSON repeats the key "value".`);
    const rendered = renderGatewayError(error);
    expect(rendered.status).toBe(400);
    expect(rendered.body.error.code).toBe('invalid_request');
  });

  it('compares keys after unescaping and at every depth', () => {
    const escaped = JSON.stringify(payload).replace('"amount":"10000"', '"amount":"10000","\\u0061mount":"1"');
    expect(failure(() => decodePaymentSignatureHeader(b64(escaped))).message).toContain('"amount"');
    const topLevel = JSON.stringify(payload).replace('{"x402Version":2', '{"x402Version":2,"x402Version":2');
    expect(failure(() => decodePaymentSignatureHeader(b64(topLevel))).reason).toBe('invalid_json');
  });

  it('refuses repeated keys in PAYMENT-REQUIRED and PAYMENT-RESPONSE too', () => {
    const required = `{"x402Version":2,"resource":{"url":"https://a.example"},"accepts":[${JSON.stringify(accepted).replace('"payTo"', '"payTo":"0x0","payTo"')}]}`;
    expect(failure(() => decodePaymentRequiredHeader(b64(required))).details).toEqual({ header: 'PAYMENT-REQUIRED', reason: 'invalid_json' });
    const response = '{"success":true,"transaction":"0x1","transaction":"0x2","network":"eip155:8453"}';
    expect(failure(() => decodePaymentResponseHeader(b64(response))).reason).toBe('invalid_json');
  });

  it('still decodes the same payload without the repeat', () => {
    expect(decodePaymentSignatureHeader(encodeX402Header(payload))).toEqual(payload);
  });
});
