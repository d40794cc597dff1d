// Real requests and responses of a running tollgate-gateway (default configuration: order mode off; order
// mode has openapi-order-responses.test.ts), settling on a real anvil chain, validated against the
// checked-in OpenAPI document with a JSON Schema 2020-12 validator (ajv). Response objects
// are closed for the check, so a field the gateway sends without documenting it fails here; and requests
// the gateway refuses for their shape are refused by the document too.
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, registerMerchant, requestChallenge, freshAccount, type JsonResponse, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { demoPayer, fundedPayer, officialPaymentHeader, payableRef, startPaymentStack, type PayableRef, type PaymentStack } from '../helpers/payments';
import { startEvidenceGateway } from '../evidence/helpers';
import { documentedCaller, type DocumentedCall } from './openapi-calls';
import { checkedInText, DocumentValidator } from './openapi-checks';
import type { OpenApiDocument } from '@tollgate/core/gateway';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;
let validator: DocumentValidator;
let documented: DocumentedCall;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, { GATEWAY_SIGNING_KEY: generatePrivateKey() }, { clock: new TestWallClock() });
  validator = new DocumentValidator(JSON.parse(checkedInText()) as OpenApiDocument);
  documented = documentedCaller(gateway.url, validator);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

describe('merchant and ref routes answer what the document says', () => {
  let merchant: TestMerchant;
  let ref: PayableRef;

  beforeAll(async () => {
    merchant = await registerMerchant(gateway.url, { network: 'local' });
    ref = await payableRef(gateway, { merchant });
  });

  it('registration: challenge, new merchant (201), recovery (200) and an attached payTo (200)', async () => {
    const account = freshAccount();
    const challengeBody = { payTo: account.address, network: 'local', action: 'merchant.register' };
    const challenge = await documented<{ challengeId: string; signingMessage: string }>('POST', '/merchant/challenge', '/merchant/challenge', { json: challengeBody });
    expect(challenge.status).toBe(200);
    const register = async (apiKey?: string) => {
      const fresh = await requestChallenge(gateway.url, account.address, { network: 'local' });
      const json = { challengeId: fresh.body.challengeId, payTo: account.address, network: 'local', label: 'Docs shop', signature: await account.signMessage({ message: fresh.body.signingMessage }) };
      return documented('POST', '/merchant/register', '/merchant/register', { json, ...(apiKey === undefined ? {} : { apiKey }) });
    };
    expect((await register()).status).toBe(201);
    expect((await register()).body).toMatchObject({ recovered: true });
    const other = freshAccount();
    const otherChallenge = await requestChallenge(gateway.url, other.address, { network: 'local' });
    const attached = await documented('POST', '/merchant/register', '/merchant/register', {
      apiKey: merchant.apiKey,
      json: { challengeId: otherChallenge.body.challengeId, payTo: other.address, network: 'local', label: 'Second till', signature: await other.signMessage({ message: otherChallenge.body.signingMessage }) },
    });
    expect(attached.body).toMatchObject({ attached: true });
    const retired = await documented('POST', '/payto/:payTo/revoke', `/payto/${other.address}/revoke`, { apiKey: merchant.apiKey });
    expect(retired.status).toBe(200);
  });

  it('the profile and credential rotation, with its conflict (409)', async () => {
    expect((await documented('GET', '/merchant/me', '/merchant/me', { apiKey: merchant.apiKey })).status).toBe(200);
    expect((await documented('POST', '/merchant/rotate-key', '/merchant/rotate-key', { apiKey: merchant.apiKey, json: { credential: 'notify' } })).status).toBe(200);
    expect((await documented('POST', '/merchant/rotate-key', '/merchant/rotate-key', { apiKey: merchant.apiKey, json: { credential: 'notify' } })).status).toBe(409);
    expect((await documented('POST', '/merchant/revoke-key', '/merchant/revoke-key', { apiKey: merchant.apiKey, json: { credential: 'notify' } })).status).toBe(200);
    const unauthorized = await documented('GET', '/merchant/me', '/merchant/me');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('refs: create (201), read, list, revoke, and the refusals', async () => {
    const created = await documented<{ refId: string }>('POST', '/ref', '/ref', {
      apiKey: merchant.apiKey,
      json: { payTo: merchant.payTo, network: 'local', amount: '2500', invoiceId: 'INV-docs-1', label: 'Docs', description: 'A documented ref', expiresInSecs: 3600 },
    });
    expect(created.status).toBe(201);
    const open = await documented('POST', '/ref', '/ref', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'local' } });
    expect(open.status).toBe(201);
    expect((await documented('GET', '/ref/:refId', `/ref/${created.body.refId}`)).status).toBe(200);
    expect((await documented('GET', '/ref', '/ref', { apiKey: merchant.apiKey, query: { pay_to: merchant.payTo, limit: '1' } })).body).toHaveProperty('nextCursor');
    expect((await documented('POST', '/ref/:refId/revoke', `/ref/${created.body.refId}/revoke`, { apiKey: merchant.apiKey })).status).toBe(200);
    // Paying a revoked ref: 410 ref_revoked.
    expect((await documented('GET', '/receive/:payTo', `/receive/${merchant.payTo}`, { query: { ref: created.body.refId } })).status).toBe(410);
    expect((await documented('GET', '/ref/:refId', `/ref/${'0'.repeat(32)}`)).status).toBe(404);
    const misspelt = await documented('POST', '/ref', '/ref', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'local', amont: '10' }, refusedByDocument: true });
    expect(misspelt.status).toBe(400);
    const notJson = await documented('POST', '/ref', '/ref', { apiKey: merchant.apiKey, raw: 'amount=10', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(415);
    expect(ref.refId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('a payment, its receipts and the chain evidence answer what the document says', () => {
  let ref: PayableRef;
  let header: string;
  let settlement: JsonResponse<{ transaction: string; extensions: { 'offer-receipt': { receipt: Record<string, unknown>; signedReceipt: string } } }>;

  beforeAll(async () => {
    ref = await payableRef(gateway);
    header = (await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack))).header;
  });

  it('negotiation: 402 with PAYMENT-REQUIRED; settlement: 200 with PAYMENT-RESPONSE and the receipts', async () => {
    const negotiation = await documented('GET', '/receive/:payTo', `/receive/${ref.merchant.payTo}`, { query: { ref: ref.refId } });
    expect(negotiation.status).toBe(402);
    expect(negotiation.headers.get('payment-required')).not.toBeNull();
    settlement = await documented('GET', '/receive/:payTo', `/receive/${ref.merchant.payTo}`, { query: { ref: ref.refId }, headers: { 'payment-signature': header } });
    expect(settlement.status).toBe(200);
    expect((await documented('GET', '/receive/:payTo', `/receive/${ref.merchant.payTo}`, { query: { ref: 'f'.repeat(32) } })).status).toBe(404);
  });

  it('a payment the facilitator refuses (a payer without funds): 402 payment_verification_failed', async () => {
    const unpaid = await payableRef(gateway);
    const { header: broke } = await officialPaymentHeader(gateway, unpaid.path, stack, await fundedPayer(stack, 0n));
    const refused = await documented<{ error: { code: string } }>('GET', '/receive/:payTo', `/receive/${unpaid.merchant.payTo}`, { query: { ref: unpaid.refId }, headers: { 'payment-signature': broke } });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 402, code: 'payment_verification_failed' });
  });

  it('recovery, receipt verification, transaction status and history', async () => {
    expect(settlement?.status).toBe(200);
    const recovered = await documented('POST', '/recover-settlement', '/recover-settlement', { json: { refId: ref.refId, paymentPayload: header } });
    expect(recovered.text).toBe(settlement.text);
    const { receipt, signedReceipt } = settlement.body.extensions['offer-receipt'];
    const verified = await documented('POST', '/verify-receipt', '/verify-receipt', { json: { signedReceipt, receipt, expectedPayTo: ref.merchant.payTo, minConfirmations: 1 } });
    expect(verified.body).toMatchObject({ verified: true });
    const tampered = await documented('POST', '/verify-receipt', '/verify-receipt', { json: { signedReceipt, receipt: { ...receipt, amount: '1' }, minConfirmations: 1 } });
    expect(tampered.status).toBe(422);
    expect((await documented('GET', '/tx/:txHash', `/tx/${settlement.body.transaction}`, { query: { network: 'local' } })).body).toMatchObject({ found: true, status: 'success' });
    expect((await documented('GET', '/txs', '/txs', { query: { pay_to: ref.merchant.payTo, network: 'local' } })).status).toBe(200);
    // "pay_to, from or cursor" is an object-level rule: the document states it in words only.
    expect((await documented('GET', '/txs', '/txs', { query: { network: 'local' } })).status).toBe(400);
  });
});

describe('the checks are not vacuous', () => {
  it('a response field the document does not have, a wrong type, or a header content that does not match fails them', async () => {
    const merchant = await registerMerchant(gateway.url, { network: 'local' });
    const ref = await payableRef(gateway, { merchant });
    const lookup = await call(gateway.url, 'GET', `/ref/${ref.refId}`);
    const negotiation = await call(gateway.url, 'GET', ref.path);
    const health = await call(gateway.url, 'GET', '/healthz');
    const document = JSON.parse(checkedInText()) as { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } };
    const schemas = document.components.schemas;
    delete schemas['PublicRef']!.properties['status'];
    schemas['PublicRef']!.required = schemas['PublicRef']!.required.filter((name) => name !== 'status');
    schemas['HealthStatus']!.properties['version'] = { type: 'integer' };
    schemas['PaymentRequired']!.properties['x402Version'] = { const: 3 };
    const strict = new DocumentValidator(document as unknown as OpenApiDocument);
    expect(strict.response('GET', '/ref/:refId', lookup).join('\n')).toMatch(/must NOT have additional properties.*status/);
    expect(strict.response('GET', '/healthz', health).join('\n')).toMatch(/body\/version must be integer/);
    expect(strict.response('GET', '/receive/:payTo', negotiation).join('\n')).toMatch(/header PAYMENT-REQUIRED\/x402Version must be equal to constant/);
    // And the untouched document accepts the same answers.
    for (const [routePath, response] of [['/ref/:refId', lookup], ['/healthz', health], ['/receive/:payTo', negotiation]] as const) expect(validator.response('GET', routePath, response)).toEqual([]);
  });
});

describe('the service routes', () => {
  it('/healthz', async () => {
    expect((await documented('GET', '/healthz', '/healthz')).status).toBe(200);
  });

  it('/openapi.json is public and cacheable, and without order mode lists no order route (in order mode it is the checked-in document)', async () => {
    const response = await documented<OpenApiDocument>('GET', '/openapi.json', '/openapi.json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(Object.keys(response.body.paths).filter((path) => path.startsWith('/order') || path.startsWith('/refund-receipt'))).toEqual([]);
    expect(response.body.paths['/pay/{refId}']).toBeDefined();
  });

  it('a method the route does not take: the default error envelope (405)', async () => {
    const response = await call(gateway.url, 'DELETE', '/ref');
    expect(response.status).toBe(405);
    expect(validator.response('POST', '/ref', response)).toEqual([]);
  });
});
