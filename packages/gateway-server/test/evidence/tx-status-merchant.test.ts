// GET /tx/:txHash under the merchant policy for a transaction that pays two merchants at once (two
// EIP-3009 authorizations batched through Multicall3, as a facilitator may do): each merchant sees its
// own transfer and nothing of the other's — not its Transfer, not its payer's AuthorizationUsed.
import { encodeFunctionData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTICALL3_ADDRESS, multicall3Artifact, testUsdcArtifact } from '@tollgate/gateway-server/devchain';
import { call, registerMerchant, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { fundedPayer, payableRef, signPayment, startPaymentStack, tokenOf, type PaymentStack } from '../helpers/payments';
import { requirementsOf } from '../helpers/recovery-app';
import { minedReceipt, sendFromDeployer, startEvidenceGateway } from './helpers';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;
let shops: TestMerchant[];
let batchTx: Hex;

interface Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, { GATEWAY_EVIDENCE_ACCESS: 'merchant' }, { clock: new TestWallClock() });
  shops = [await registerMerchant(gateway.url, { network: 'local' }), await registerMerchant(gateway.url, { network: 'local' })];
  const calls = [];
  for (const shop of shops) {
    const ref = await payableRef(gateway, { merchant: shop });
    const payer = await fundedPayer(stack, 1_000_000n);
    const signed = (await signPayment(tokenOf(stack), payer, await requirementsOf(gateway.url, ref.path))) as { payload: { authorization: Authorization; signature: Hex } };
    const { authorization: auth, signature } = signed.payload;
    calls.push({
      target: stack.setup.usdc.address,
      allowFailure: false,
      callData: encodeFunctionData({
        abi: testUsdcArtifact.abi,
        functionName: 'transferWithAuthorization',
        args: [auth.from, auth.to, BigInt(auth.value), BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, signature],
      }),
    });
  }
  batchTx = await sendFromDeployer(stack, { to: MULTICALL3_ADDRESS, data: encodeFunctionData({ abi: multicall3Artifact.abi, functionName: 'aggregate3', args: [calls] }) });
  expect((await minedReceipt(stack, batchTx)).status).toBe('0x1');
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

interface TxView {
  found: boolean;
  transfer: { to: string } | null;
  transferCount: number;
  logs: { topics: Hex[] }[];
  logCount: number;
}

describe('GET /tx/:txHash of a batch paying two merchants, under the merchant policy', () => {
  it('shows each merchant its own transfer and none of the other merchant’s logs', async () => {
    const receipt = await stack.chain.getTransactionReceipt({ hash: batchTx });
    expect(receipt.logs.length).toBe(4);
    for (const [index, shop] of shops.entries()) {
      const other = shops[1 - index]!;
      const view = await call<TxView>(gateway.url, 'GET', `/tx/${batchTx}`, { apiKey: shop.apiKey });
      expect(view.status, view.text).toBe(200);
      expect(view.body).toMatchObject({ found: true, transfer: { to: shop.payTo }, transferCount: 1 });
      const otherTopic = `0x${other.payTo.slice(2).toLowerCase().padStart(64, '0')}`;
      const otherPayer = receipt.logs.find((log) => log.topics[2]?.toLowerCase() === otherTopic)?.topics[1];
      expect(otherPayer).toEqual(expect.any(String));
      const shown = JSON.stringify(view.body.logs).toLowerCase();
      expect(shown).not.toContain(otherTopic.slice(2));
      expect(shown).not.toContain((otherPayer as string).slice(2).toLowerCase());
      expect(view.body.logCount).toBe(view.body.logs.length);
    }
  });
});
