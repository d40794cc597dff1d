// Shared helpers of the refund-payment tests: a gateway in order mode on a real anvil chain, orders paid
// by a funded payer with the official x402 client, refund intents created over HTTP, and refund payments
// signed by the merchant's payTo account (with the official client, or directly with viem).
import type { LocalAccount } from 'viem';
import type { PaymentRequirements } from '@tollgate/core';
import { call, type JsonResponse, type TestGateway, type TestGatewayOptions, type TestMerchant } from '../helpers/gateway';
import { decodeHeader, encodePayment, fundedPayer, officialPaymentHeader, signPayment, tokenOf, type PaymentStack } from '../helpers/payments';
import { relaxedEvidenceLimits } from '../evidence/helpers';
import * as orders from '../orders/helpers';
import { pathOf, type OrderBody, type RefundBody } from '../orders/helpers';

// The order and refund shapes, and pathOf, are the order tests' (one definition of what the routes answer).
export { pathOf, type OrderBody, type RefundBody };

/** A gateway in order mode settling on `stack`, with relaxed limits and a clock at the real time (authorizations are signed against it). */
export function startOrderGateway(stack: PaymentStack, env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<orders.OrderGateway> {
  return orders.startOrderGateway(stack, { ...relaxedEvidenceLimits, ...env }, options);
}

/** A paid order: its merchant, payer, the order as answered after payment, and the payment's receipt. */
export interface PaidOrder extends orders.PaidOrder {
  readonly merchant: TestMerchant;
}

/** Creates an order for a merchant on `local` (a new one by default) and pays it with a freshly funded payer. */
export async function paidOrder(gateway: TestGateway, stack: PaymentStack, options: { amount?: string; merchant?: TestMerchant } = {}): Promise<PaidOrder> {
  const merchant = options.merchant ?? (await orders.localMerchant(gateway));
  const amount = options.amount ?? '10000';
  const payer: LocalAccount = await fundedPayer(stack, BigInt(amount));
  return { merchant, ...(await orders.paidOrder(gateway, stack, merchant, payer, { amount })) };
}

/** `GET /order/:orderId` as the merchant; fails unless 200. */
export async function getOrder(gateway: TestGateway, merchant: TestMerchant, orderId: string): Promise<OrderBody> {
  const response = await call<OrderBody>(gateway.url, 'GET', `/order/${orderId}`, { apiKey: merchant.apiKey });
  if (response.status !== 200) throw new Error(`GET /order answered ${response.status}: ${response.text}`);
  return response.body;
}

/** `POST /order/:orderId/refund`; fails unless 201. */
export async function createRefund(gateway: TestGateway, paid: Pick<PaidOrder, 'merchant' | 'order'>, body: Record<string, unknown>): Promise<RefundBody> {
  const response = await call<RefundBody>(gateway.url, 'POST', `/order/${paid.order.orderId}/refund`, { apiKey: paid.merchant.apiKey, json: body });
  if (response.status !== 201) throw new Error(`POST …/refund answered ${response.status}: ${response.text}`);
  return response.body;
}

/** `GET /order/:orderId/refund/:refundId`; fails unless 200. */
export async function getRefund(gateway: TestGateway, paid: Pick<PaidOrder, 'merchant' | 'order'>, refundId: string): Promise<RefundBody> {
  const response = await call<RefundBody>(gateway.url, 'GET', `/order/${paid.order.orderId}/refund/${refundId}`, { apiKey: paid.merchant.apiKey });
  if (response.status !== 200) throw new Error(`GET …/refund answered ${response.status}: ${response.text}`);
  return response.body;
}

/** The refund's 402 requirement (the one `accepts[]` entry), from its receive URL. */
export async function refundRequirement(gateway: TestGateway, refund: RefundBody): Promise<{ accepted: PaymentRequirements; resource: { url: string } }> {
  const negotiation = await call(gateway.url, 'GET', pathOf(refund.receiveUrl));
  if (negotiation.status !== 402) throw new Error(`expected 402, got ${negotiation.status}: ${negotiation.text}`);
  const required = decodeHeader<{ accepts: PaymentRequirements[]; resource: { url: string } }>(negotiation.headers.get('payment-required'));
  return { accepted: required.accepts[0]!, resource: required.resource };
}

/**
 * A refund payment signed directly with viem by `signer` (the merchant's payTo account, or anyone else
 * to test refusals), for `accepted` as the 402 gave it (or altered), sent to `path` (the refund's receive
 * path by default).
 */
export async function submitRefundPayment(
  gateway: TestGateway,
  stack: PaymentStack,
  refund: RefundBody,
  signer: LocalAccount,
  options: { path?: string; alter?: (accepted: PaymentRequirements) => PaymentRequirements } = {},
): Promise<JsonResponse> {
  const { accepted, resource } = await refundRequirement(gateway, refund);
  const payload = await signPayment(tokenOf(stack), signer, options.alter?.(accepted) ?? accepted);
  return call(gateway.url, 'GET', options.path ?? pathOf(refund.receiveUrl), { headers: { 'payment-signature': encodePayment({ ...payload, resource }) } });
}

/** The merchant pays the refund back with the official x402 client (it signs from its payTo); the raw answer, and the header to replay. */
export async function payRefund(gateway: TestGateway, stack: PaymentStack, refund: RefundBody, merchant: TestMerchant): Promise<JsonResponse & { paymentSignature: string }> {
  const path = pathOf(refund.receiveUrl);
  const { header } = await officialPaymentHeader(gateway, path, stack, merchant.account);
  return { ...(await call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } })), paymentSignature: header };
}

/** The refund receipt of a 200 refund answer. */
export function refundReceiptOf(response: JsonResponse): { receipt: Record<string, unknown> & { type: string; txHash: string; amount: string }; signedReceipt: string } {
  const extension = (response.body as { extensions: { 'offer-receipt': { receipt: Record<string, unknown> & { type: string; txHash: string; amount: string }; signedReceipt: string } } }).extensions['offer-receipt'];
  return { receipt: extension.receipt, signedReceipt: extension.signedReceipt };
}

/** `POST /verify-refund-receipt`. */
export function verifyRefund<Body = Record<string, unknown>>(gateway: TestGateway, body: unknown): Promise<JsonResponse<Body>> {
  return call<Body>(gateway.url, 'POST', '/verify-refund-receipt', { json: body });
}
