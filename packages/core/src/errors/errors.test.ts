import { describe, expect, it } from 'vitest';
import {
  AdminError,
  GatewayError,
  LicenseClientError,
  RequestError,
  TollgateError,
  adminErrorCodes,
  gatewayErrorCodes,
  licenseClientErrorCodes,
  renderAdminError,
  renderGatewayError,
  renderLicenseClientError,
} from './index';
import { decodeCanonical } from '../cbor';

const specGatewayCodes = [
  'invalid_request', 'unauthorized', 'forbidden', 'not_found', 'ref_expired', 'ref_revoked', 'payto_revoked',
  'payment_required', 'payment_verification_failed', 'settlement_failed', 'receipt_invalid', 'rpc_unavailable', 'rate_limited',
];
const specAdminCodes = {
  invalid_token: 401, insufficient_scope: 403, not_found: 404, idempotency_conflict: 409, already_revoked: 409,
  revocation_in_progress: 409, confirmation_mismatch: 409, replacement_epoch_required: 409, second_actor_required: 409,
  license_not_active: 409, olk_not_allowed: 422, invalid_entitlement: 422, signer_key_not_registered: 403,
  invalid_signature: 401, internal_error: 500,
};

describe('error registries', () => {
  it('hold every code the specs name', () => {
    for (const code of specGatewayCodes) expect(gatewayErrorCodes).toHaveProperty(code);
    for (const [code, status] of Object.entries(specAdminCodes)) expect(adminErrorCodes[code as keyof typeof adminErrorCodes]).toBe(status);
    expect(Object.keys(licenseClientErrorCodes).map(Number)).toEqual([1000, 1001, 1003, 1004, 1005, 1007, 1008, 1009, 5000]);
  });

  it('keeps message, details and cause on the base class', () => {
    const cause = new Error('boom');
    const error = new GatewayError('not_found', 'No such ref.', { details: { refId: 'abc' }, cause });
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'not_found', message: 'No such ref.', details: { refId: 'abc' } });
    expect(error.cause).toBe(cause);
  });
});

describe('renderGatewayError', () => {
  it('renders the spec envelope with the registry status', () => {
    const rendered = renderGatewayError(new GatewayError('ref_revoked', 'Ref was revoked.', { details: { refId: 'r1' } }));
    expect(rendered.status).toBe(410);
    expect(rendered.body).toEqual({ x402Version: 2, error: { code: 'ref_revoked', message: 'Ref was revoked.', details: { refId: 'r1' } } });
    expect(rendered.headers['content-type']).toMatch(/^application\/json/);
  });

  it('adds Retry-After for rate limits', () => {
    const rendered = renderGatewayError(new GatewayError('rate_limited', 'Slow down.', { retryAfterSeconds: 2.2 }));
    expect(rendered.status).toBe(429);
    expect(rendered.headers['retry-after']).toBe('3');
  });

  it('maps transport refusals and hides unknown errors', () => {
    expect(renderGatewayError(new RequestError('payload_too_large', 'Body over 64 KiB.')).body.error.code).toBe('payload_too_large');
    expect(renderGatewayError(new RequestError('malformed_body', 'Bad JSON.')).status).toBe(400);
    const hidden = renderGatewayError(new Error('database password is hunter2'));
    expect(hidden.status).toBe(500);
    expect(JSON.stringify(hidden.body)).not.toContain('hunter2');
  });
});

describe('renderLicenseClientError', () => {
  it('renders the CBOR map {0: code, 1: message, 2: retry_after} with Retry-After', () => {
    const rendered = renderLicenseClientError(new LicenseClientError(5000, 'Keyset cache is cold.', { status: 503, retryAfterSeconds: 1 }));
    expect(rendered.status).toBe(503);
    expect(rendered.headers['retry-after']).toBe('1');
    expect(rendered.headers['content-type']).toBe('application/cbor');
    const decoded = decodeCanonical(rendered.body) as Map<number, unknown>;
    expect([...decoded.entries()]).toEqual([[0, 5000], [1, 'Keyset cache is cold.'], [2, 1]]);
  });

  it('keeps the message within the protocol limit of 1,024 bytes, on a character boundary', () => {
    const rendered = renderLicenseClientError(new RequestError('malformed_request', `bad key ${'é'.repeat(2_000)}`));
    const message = (decodeCanonical(rendered.body) as Map<number, unknown>).get(1) as string;
    expect(new TextEncoder().encode(message).length).toBeLessThanOrEqual(1_024);
    expect(message.endsWith('é…')).toBe(true);
  });

  it('refuses a status the spec does not allow for the code', () => {
    expect(() => new LicenseClientError(1004, 'x', { status: 400 })).toThrow(RangeError);
  });

  it('maps transport refusals to 1000 with an allowed status', () => {
    const tooLarge = renderLicenseClientError(new RequestError('payload_too_large', 'Body over 16 KiB.'));
    expect(tooLarge.status).toBe(413);
    expect((decodeCanonical(tooLarge.body) as Map<number, unknown>).get(0)).toBe(1000);
    expect(renderLicenseClientError(new RequestError('not_found', 'No such endpoint.')).status).toBe(400);
    const hidden = renderLicenseClientError(new TypeError('x is undefined'));
    expect(hidden.status).toBe(500);
    expect((decodeCanonical(hidden.body) as Map<number, unknown>).get(0)).toBe(5000);
  });
});

describe('renderAdminError', () => {
  it('renders { ok: false, error } with status and extra headers', () => {
    const rendered = renderAdminError(new AdminError('invalid_token', 'Missing bearer token.', { headers: { 'www-authenticate': 'Bearer realm="tollgate"' } }));
    expect(rendered.status).toBe(401);
    expect(rendered.body).toEqual({ ok: false, error: { code: 'invalid_token', message: 'Missing bearer token.' } });
    expect(rendered.headers['www-authenticate']).toBe('Bearer realm="tollgate"');
    expect(rendered.headers['cache-control']).toBe('no-store');
  });

  it('maps transport refusals and hides unknown errors', () => {
    expect(renderAdminError(new RequestError('unsupported_media_type', 'Use JSON.')).body.error.code).toBe('unsupported_media_type');
    expect(renderAdminError(new RangeError('secret')).body).toEqual({ ok: false, error: { code: 'internal_error', message: 'Internal error.' } });
  });
});
