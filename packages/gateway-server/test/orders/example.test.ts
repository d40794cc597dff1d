import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { startOrderGateway, type OrderGateway } from './helpers';

// Runs examples/order-and-refund.ts exactly as a reader would (`npm run example -- order-and-refund`, bundled
// with esbuild) against a real gateway in order mode on a real anvil chain, paying as the demo payer.
let stack: PaymentStack;
let gateway: OrderGateway;
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

describe('examples/order-and-refund.ts', () => {
  it('walks order → payment → refund intent → refund paid by the merchant → verified receipts → rejected intent', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/run-example.mjs', 'order-and-refund'], {
      cwd: repositoryRoot,
      env: { ...process.env, GATEWAY_URL: gateway.url, RPC_URL: stack.anvil.rpcUrl, PAYER_PRIVATE_KEY: stack.setup.payer.privateKey, TOLLGATE_DATA_DIR: '/nonexistent/tollgate-example' },
      timeout: 60_000,
    });
    for (const heading of ['1. Gateway', '2. Merchant registered', '3. Order created', '4. Order paid', '5. Refund intent', '6. Refund paid', '7. Order after the refund', '8. Refund rejected']) {
      expect(stdout).toContain(`== ${heading}`);
    }
    expect(stdout).toContain(`Refund receipt verified: signed by ${gateway.receiptSigner}, kind refund`);
    expect(stdout).toContain(`Rejected-refund receipt verified: signed by ${gateway.receiptSigner} (x402.refund.rejected`);
    expect(stdout).toMatch(/"status": "partially_refunded"/);
    expect(stdout).not.toMatch(/tg_live_[A-Za-z0-9_-]{43}/);
    // The reverse transfer is on the chain, not only in the example's words: the merchant paid the payer 4000.
    const payTo = /"payTo": "(0x[0-9a-fA-F]{40})"/.exec(stdout)?.[1];
    expect(payTo).toBeDefined();
    const back = (await transfersTo(stack, stack.setup.payer.address)).filter((transfer) => transfer.from === payTo);
    expect(back.map((transfer) => transfer.value)).toEqual([4000n]);
  });
});
