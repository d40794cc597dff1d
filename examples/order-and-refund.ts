// Order mode end to end on the local dev chain that `npm start` runs (order mode is on there): a merchant
// creates an order, a payer pays it with the official x402 client, the merchant opens a refund intent and
// pays the payer back from its own payTo, and checks the signed refund receipt (locally against the
// pinned receipt key, and with POST /verify-refund-receipt, which also reads the reverse transfer on
// chain). A second intent is rejected instead, with a signed rejected-refund receipt.
//
//   npm start                                # in one terminal
//   npm run example -- order-and-refund      # in another
//
// It finds the running dev stack through the file the gateway writes while it runs
// (`<TOLLGATE_DATA_DIR or .tollgate>/devchain/dev-stack.json`: gateway URL, chain RPC, demo payer key).
// Overrides: GATEWAY_URL, PAYER_PRIVATE_KEY, RPC_URL. The demo payer key is a public dev key.
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, erc20Abi, formatUnits, http, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { refundOfReceipt, verifySignedReceipt, verifySignedRefundReceipt, type PaymentReceipt } from '@tollgate/core';
import { readDevStackFile } from '@tollgate/gateway-server';

const dataDir = process.env['TOLLGATE_DATA_DIR'] || '.tollgate';
const devStack = readDevStackFile(dataDir);
const gatewayUrl = (process.env['GATEWAY_URL'] || devStack?.gatewayUrl || 'http://localhost:4020').replace(/\/$/, '');
const rpcUrl = process.env['RPC_URL'] || devStack?.rpcUrl;
const payerKey = (process.env['PAYER_PRIVATE_KEY'] || devStack?.payer.privateKey) as Hex | undefined;
const network = 'local';

/** The gateway's error envelope: `{ x402Version: 2, error: { code, message, details } }`. */
interface GatewayErrorBody {
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/** What the order routes answer (the fields this example reads). */
interface Order {
  orderId: string;
  status: string;
  amount: string;
  receiveUrl: string;
  payUrl: string;
  payment: { paymentId: string; payer: string; txHash: string; receiptHash: string } | null;
  refunded: string;
  refundReserved: string;
  refundable: string;
}

/** What the refund routes answer (the fields this example reads). */
interface Refund {
  refundId: string;
  status: string;
  amount: string;
  payer: string;
  payTo: string;
  refundOf: string;
  receiveUrl: string;
  rejection: { reason: string | null; receipt: unknown; signedReceipt: string } | null;
}

/** A settlement response with its offer-receipt extension. */
interface Settlement {
  success?: boolean;
  transaction: string;
  extensions: { 'offer-receipt': { signedReceipt: Hex; receipt: Record<string, unknown> } };
}

/** Calls the gateway with a JSON body (if any) and an API key (if any); throws on an error envelope. */
async function gateway<T>(method: string, path: string, options: { body?: unknown; apiKey?: string } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
  let response: Response;
  try {
    response = await fetch(`${gatewayUrl}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  } catch (cause) {
    throw new Error(`No gateway answers at ${gatewayUrl}. Is \`npm start\` running? (set GATEWAY_URL otherwise)`, { cause });
  }
  const body = (await response.json()) as T & GatewayErrorBody;
  if (!response.ok) {
    const hint = response.status === 404 && path.startsWith('/order') ? ' (is order mode on? GATEWAY_ORDER_MODE=on)' : '';
    throw new Error(`${method} ${path} → ${response.status} ${body.error?.code}: ${body.error?.message} ${JSON.stringify(body.error?.details)}${hint}`);
  }
  return body;
}

function step(title: string, value: unknown): void {
  console.log(`\n== ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
}

/** Pays `url` (a receive URL) with the official x402 client as `account`; returns the settlement response. */
async function payWithX402(url: string, account: LocalAccount): Promise<Settlement> {
  // The 402 names the token; a real client pins the asset it is willing to pay instead of taking the server's word.
  const unpaid = await fetch(url);
  const accepted = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((name) => unpaid.headers.get(name)).accepts[0];
  if (unpaid.status !== 402 || accepted === undefined) throw new Error(`Expected a 402 with requirements at ${url}, got ${unpaid.status}.`);
  const client = x402Client.fromConfig({
    schemes: [{ network: accepted.network, client: new ExactEvmScheme(account) }],
    spendControls: { allowedAssets: [{ network: accepted.network, asset: accepted.asset }] },
  });
  const paid = await wrapFetchWithPayment(fetch, client)(url);
  const settlement = (await paid.json()) as Settlement & GatewayErrorBody;
  if (paid.status !== 200 || settlement.success !== true) throw new Error(`Payment was not settled: ${paid.status} ${JSON.stringify(settlement.error ?? settlement)}`);
  return settlement;
}

async function main(): Promise<void> {
  if (payerKey === undefined || rpcUrl === undefined) {
    throw new Error(`No running dev stack found in ${dataDir}/devchain/dev-stack.json. Start it with \`npm start\`, or set PAYER_PRIVATE_KEY and RPC_URL.`);
  }
  const payer = privateKeyToAccount(payerKey);
  const chain = createPublicClient({ transport: http(rpcUrl) });

  // 1. The gateway and the address its receipts are signed with (pin it).
  const { receiptSigner } = await gateway<{ receiptSigner: Address }>('GET', '/healthz');
  step('1. Gateway', { gatewayUrl, receiptSigner, payer: payer.address });

  // 2. A merchant with a fresh wallet registers on the local network. This wallet is its payTo: it is
  //    paid there, and it pays refunds back from there (it needs no ETH: the facilitator pays the gas).
  const merchant = privateKeyToAccount(generatePrivateKey());
  const challenge = await gateway<{ challengeId: string; signingMessage: string }>('POST', '/merchant/challenge', {
    body: { payTo: merchant.address, network, action: 'merchant.register' },
  });
  const { apiKey } = await gateway<{ apiKey: string }>('POST', '/merchant/register', {
    body: { challengeId: challenge.challengeId, payTo: merchant.address, network, label: 'Demo shop', signature: await merchant.signMessage({ message: challenge.signingMessage }) },
  });
  step('2. Merchant registered', { payTo: merchant.address });

  // 3. An order: a fixed amount (0.01 USDC), its own ref, and the merchant's metadata.
  const order = await gateway<Order>('POST', '/order', {
    apiKey,
    body: { payTo: merchant.address, network, amount: '10000', invoiceId: `DEMO-${Date.now()}`, label: 'Demo order', metadata: { customerId: 'cus_demo', sku: 'MUG-1' } },
  });
  step('3. Order created', { orderId: order.orderId, status: order.status, amount: order.amount, receiveUrl: order.receiveUrl, payUrl: order.payUrl });

  // 4. The payer pays the order's receive URL with the official x402 client.
  const payment = await payWithX402(order.receiveUrl, payer);
  const original = payment.extensions['offer-receipt'];
  const checked = verifySignedReceipt(original.signedReceipt, original.receipt, receiptSigner);
  if (!checked.valid) throw new Error(`The payment receipt does not verify: ${checked.reason}`);
  const paid = await gateway<Order>('GET', `/order/${order.orderId}`, { apiKey });
  if (paid.status !== 'paid' || paid.payment?.receiptHash !== checked.receiptHash) throw new Error(`The order is ${paid.status}, not paid with this receipt.`);
  step('4. Order paid', { status: paid.status, payment: paid.payment, refundable: paid.refundable });

  // 5. A partial refund intent: its refund ref pays the payer, accepts only the merchant's payTo as
  //    payer, and is bound to the original receipt (refundOf = sha256:<receiptHash>).
  const refund = await gateway<Refund>('POST', `/order/${order.orderId}/refund`, { apiKey, body: { amount: '4000', reason: 'One mug arrived broken' } });
  if (refund.refundOf !== refundOfReceipt(checked.receipt as PaymentReceipt)) throw new Error('The refund intent is not bound to this payment.');
  step('5. Refund intent', { refundId: refund.refundId, status: refund.status, amount: refund.amount, to: refund.payer, from: refund.payTo, refundOf: refund.refundOf, receiveUrl: refund.receiveUrl });

  // 6. The merchant pays the refund: an EIP-3009 transfer from its payTo to the payer, settled through
  //    the refund's receive URL like any x402 payment. The answer carries a signed refund receipt.
  const balanceOf = (owner: Address) => chain.readContract({ address: checked.receipt.asset, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  const before = await balanceOf(payer.address);
  const refunded = await payWithX402(refund.receiveUrl, merchant);
  const { receipt, signedReceipt } = refunded.extensions['offer-receipt'];
  const after = await balanceOf(payer.address);
  step('6. Refund paid', { transaction: refunded.transaction, receipt, payerUsdcBefore: formatUnits(before, 6), payerUsdcAfter: formatUnits(after, 6) });

  // 7. Check the refund receipt: locally against the pinned key, then with the gateway, which also
  //    checks its binding to the original receipt and the reverse transfer on chain.
  const local = verifySignedRefundReceipt(signedReceipt, receipt, receiptSigner);
  if (!local.valid) throw new Error(`The refund receipt does not verify: ${local.reason}`);
  const verification = await gateway<{ verified: boolean; kind: string; context: { valid: boolean; binding: string }; chain: { status: string } | null }>('POST', '/verify-refund-receipt', {
    body: { signedReceipt, receipt, originalReceipt: original.receipt, minConfirmations: 1 },
  });
  if (!verification.verified) throw new Error(`The gateway does not verify the refund: ${JSON.stringify(verification)}`);
  console.log(`\nRefund receipt verified: signed by ${local.signer}, kind ${verification.kind}, binding ${verification.context.binding}, chain ${verification.chain?.status}`);
  const afterRefund = await gateway<Order>('GET', `/order/${order.orderId}`, { apiKey });
  step('7. Order after the refund', { status: afterRefund.status, refunded: afterRefund.refunded, refundable: afterRefund.refundable });

  // 8. Another intent, rejected instead of paid: a signed rejected-refund receipt, bound to the original receipt.
  const second = await gateway<Refund>('POST', `/order/${order.orderId}/refund`, { apiKey, body: { amount: '6000' } });
  const rejected = await gateway<Refund>('POST', `/order/${order.orderId}/refund/${second.refundId}/reject`, { apiKey, body: { reason: 'Store credit given instead' } });
  const rejection = verifySignedRefundReceipt(rejected.rejection?.signedReceipt, rejected.rejection?.receipt, receiptSigner);
  if (!rejection.valid) throw new Error(`The rejected-refund receipt does not verify: ${rejection.reason}`);
  step('8. Refund rejected', { refundId: rejected.refundId, status: rejected.status, rejection: rejected.rejection });
  console.log(`Rejected-refund receipt verified: signed by ${rejection.signer} (${rejection.receipt.type}, refundOf ${rejection.receipt.refundOf})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
