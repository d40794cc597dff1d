// Receipt key rotation: a receipt signed by a rotated-out key still verifies while the operator lists
// that key in GATEWAY_PREVIOUS_RECEIPT_SIGNERS, and stops verifying once it is unlisted. The gateway is
// restarted on the same database between the steps, as an operator rotating keys does.
import { rmSync } from 'node:fs';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, dataDirFromTemplate, expectError, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { payForReceipt, startEvidenceGateway, type PaidReceipt } from './helpers';
import { TestWallClock } from '../helpers/clock';

const oldKey = generatePrivateKey();
const newKey = generatePrivateKey();
const oldSigner = privateKeyToAccount(oldKey).address;
const newSigner = privateKeyToAccount(newKey).address;

let stack: PaymentStack;
let dataDir: string;
const secret = crypto.getRandomValues(new Uint8Array(32));
let running: TestGateway | undefined;

async function restart(env: Record<string, string>): Promise<TestGateway> {
  await running?.close();
  running = await startEvidenceGateway(stack, env, { dataDir, secret, clock: new TestWallClock() });
  return running;
}

beforeAll(async () => {
  stack = await startPaymentStack();
  dataDir = await dataDirFromTemplate();
});
afterAll(async () => {
  await running?.close();
  await stack?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

const verify = (gateway: TestGateway, paid: PaidReceipt) =>
  call<{ verified: boolean; signature: Record<string, unknown> }>(gateway.url, 'POST', '/verify-receipt', { json: { signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: 1 } });

describe('receipts signed before a key rotation', () => {
  it('verify while the old key is listed, and not once it is unlisted', async () => {
    const before = await payForReceipt(await restart({ GATEWAY_SIGNING_KEY: oldKey }), stack);
    const beforeX402 = { signedReceipt: before.x402Receipt.signature, receipt: before.x402Receipt, minConfirmations: 1 };

    const listed = await restart({ GATEWAY_SIGNING_KEY: newKey, GATEWAY_PREVIOUS_RECEIPT_SIGNERS: oldSigner.toLowerCase() });
    const old = await verify(listed, before);
    expect(old.status, old.text).toBe(200);
    expect(old.body).toMatchObject({ verified: true, signature: { valid: true, signer: oldSigner, role: 'previous' } });
    expect((await call(listed.url, 'POST', '/verify-receipt', { json: beforeX402 })).body).toMatchObject({ verified: true, signature: { role: 'previous' } });
    // Receipts issued now carry the new key.
    const after = await payForReceipt(listed, stack);
    expect((await verify(listed, after)).body).toMatchObject({ verified: true, signature: { signer: newSigner, role: 'current' } });

    const unlisted = await restart({ GATEWAY_SIGNING_KEY: newKey });
    const details = expectError(await verify(unlisted, before), 422, 'receipt_invalid');
    expect(details).toMatchObject({ reason: 'signature', signature: { valid: false, signer: oldSigner, role: null, reason: 'unknown_signer' }, context: { content: 'matches_stored' } });
    expectError(await call(unlisted.url, 'POST', '/verify-receipt', { json: beforeX402 }), 422, 'receipt_invalid');
    expect((await verify(unlisted, after)).body).toMatchObject({ verified: true, signature: { role: 'current' } });
  });

  it('refuses a malformed signer list at start-up, naming the variable', async () => {
    const { loadGatewayConfig } = await import('@tollgate/gateway-server');
    expect(() => loadGatewayConfig({ GATEWAY_PREVIOUS_RECEIPT_SIGNERS: `${oldSigner},0x12` })).toThrow(/GATEWAY_PREVIOUS_RECEIPT_SIGNERS/);
    expect(loadGatewayConfig({ GATEWAY_PREVIOUS_RECEIPT_SIGNERS: ` ${oldSigner} , ${oldSigner.toLowerCase()}` }).evidence.previousReceiptSigners).toEqual([oldSigner]);
  });
});
