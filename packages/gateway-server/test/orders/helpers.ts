// Shared helpers of the order-mode tests: a gateway with order mode on over a real anvil payment stack,
// merchants on the `local` network, orders created and paid through the public API (the official x402
// client pays /receive), and the shapes the order and refund routes answer.
import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { notificationQueue, type NotificationJob, type PaymentReceipt } from '@tollgate/core';
import { call, registerMerchant, startTestGateway, type JsonResponse, type TestGateway, type TestGatewayOptions, type TestMerchant } from '../helpers/gateway';
import { officialFetch, type PaymentStack } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

/** An order as the order routes answer it. */
export interface OrderBody {
  orderId: string;
  status: string;
  amount: string;
  payTo: string;
  network: string;
  asset: string;
  invoiceId: string | null;
  label: string | null;
  description: string | null;
  metadata: Record<string, string> | null;
  notifyUrl: string | null;
  refId: string;
  refUrl: string;
  payUrl: string;
  receiveUrl: string;
  createdAt: number;
  expiresAt: number;
  paidAt: number | null;
  cancelledAt: number | null;
  payment: { paymentId: string; payer: string; txHash: string; receiptHash: string } | null;
  refunded: string;
  refundReserved: string;
  refundable: string;
}

/** A refund intent as the refund routes answer it. */
export interface RefundBody {
  refundId: string;
  orderId: string;
  status: string;
  amount: string;
  payer: string;
  payTo: string;
  network: string;
  asset: string;
  refundOf: string;
  refId: string;
  receiveUrl: string;
  reason: string | null;
  createdAt: number;
  expiresAt: number;
  paidAt: number | null;
  payment: { paymentId: string; txHash: string; receiptHash: string } | null;
  rejection: { reason: string | null; rejectedAt: number; receipt: Record<string, unknown>; signedReceipt: string } | null;
}

/** The settlement response of a paid order (the parts the tests read). */
export interface PaidOrder {
  readonly order: OrderBody;
  readonly payer: LocalAccount;
  readonly transaction: string;
  readonly receipt: PaymentReceipt;
  readonly signedReceipt: string;
}

/** A gateway in order mode on the stack's chain, with its receipt key's address. */
export interface OrderGateway extends TestGateway {
  readonly receiptSigner: `0x${string}`;
}

/** Starts a gateway with `GATEWAY_ORDER_MODE=on` on `stack` (clock at real time: payments are signed with it). */
export async function startOrderGateway(stack: PaymentStack, env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<OrderGateway> {
  const signingKey = (env['GATEWAY_SIGNING_KEY'] as `0x${string}` | undefined) ?? generatePrivateKey();
  const gateway = await startTestGateway(
    { ...stack.gatewayEnv, GATEWAY_ORDER_MODE: 'on', ...env, GATEWAY_SIGNING_KEY: signingKey },
    { clock: new TestWallClock(), ...options },
  );
  return Object.assign(gateway, { receiptSigner: privateKeyToAccount(signingKey).address });
}

/** A merchant registered on the `local` network. */
export function localMerchant(gateway: TestGateway): Promise<TestMerchant> {
  return registerMerchant(gateway.url, { network: 'local' });
}

/** `POST /order` for the merchant's payTo on `local` (amount 10000 unless `fields` says otherwise). */
export function createOrder(gateway: TestGateway, merchant: Pick<TestMerchant, 'apiKey' | 'payTo'>, fields: Record<string, unknown> = {}): Promise<JsonResponse<OrderBody>> {
  return call<OrderBody>(gateway.url, 'POST', '/order', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'local', amount: '10000', ...fields } });
}

/** Creates an order and fails the test unless it is 201. */
export async function createdOrder(gateway: TestGateway, merchant: Pick<TestMerchant, 'apiKey' | 'payTo'>, fields: Record<string, unknown> = {}): Promise<OrderBody> {
  const response = await createOrder(gateway, merchant, fields);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** `GET /order/:orderId` as `merchant`. */
export function getOrder(gateway: TestGateway, merchant: Pick<TestMerchant, 'apiKey'>, orderId: string): Promise<JsonResponse<OrderBody>> {
  return call<OrderBody>(gateway.url, 'GET', `/order/${orderId}`, { apiKey: merchant.apiKey });
}

/** The path and query of an absolute URL (to call it on the test gateway whatever its public origin). */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Pays the order's receive URL with the official x402 client as `payer`; fails unless settled. */
export async function payOrder(gateway: TestGateway, stack: PaymentStack, order: OrderBody, payer: LocalAccount): Promise<Omit<PaidOrder, 'order'>> {
  const response = await officialFetch(stack, payer)(`${gateway.url}${pathOf(order.receiveUrl)}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const body = JSON.parse(text) as { transaction: string; extensions: { 'offer-receipt': { receipt: PaymentReceipt; signedReceipt: string } } };
  const { receipt, signedReceipt } = body.extensions['offer-receipt'];
  return { payer, transaction: body.transaction, receipt, signedReceipt };
}

/** Creates an order, pays it, and reads it back (paid). */
export async function paidOrder(gateway: TestGateway, stack: PaymentStack, merchant: TestMerchant, payer: LocalAccount, fields: Record<string, unknown> = {}): Promise<PaidOrder> {
  const created = await createdOrder(gateway, merchant, fields);
  const paid = await payOrder(gateway, stack, created, payer);
  const order = await getOrder(gateway, merchant, created.orderId);
  expect(order.body.status, order.text).toBe('paid');
  return { order: order.body, ...paid };
}

/** `POST /order/:orderId/refund` as `merchant`. */
export function createRefund(gateway: TestGateway, merchant: Pick<TestMerchant, 'apiKey'>, orderId: string, body: Record<string, unknown>): Promise<JsonResponse<RefundBody>> {
  return call<RefundBody>(gateway.url, 'POST', `/order/${orderId}/refund`, { apiKey: merchant.apiKey, json: body });
}

/** The notification jobs of the gateway's queue, oldest first. */
export async function notificationJobs(gateway: TestGateway): Promise<NotificationJob[]> {
  const { rows } = await gateway.server.database.sql.query<{ payload: NotificationJob }>('SELECT payload FROM tollgate_jobs WHERE queue = $1 ORDER BY id', [notificationQueue]);
  return rows.map((row) => row.payload);
}
