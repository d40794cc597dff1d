import { isPaymentPayloadV2, isPaymentRequirementsV2 } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import * as v from 'valibot';
import { isAddress } from 'viem';

/**
 * A `/supported` answer. Looser than `SupportedResponse` from `@x402/core/types` because
 * `x402Facilitator.getSupported()` itself types `network` as a plain string.
 */
export interface SupportedKinds {
  kinds: { x402Version: number; scheme: string; network: string; extra?: Record<string, unknown> }[];
  extensions: string[];
  signers: Record<string, string[]>;
}

/** A `/verify` or `/settle` body that passed every check and may be handed to the facilitator. */
export interface FacilitatorCall {
  readonly paymentPayload: PaymentPayload;
  readonly paymentRequirements: PaymentRequirements;
}

/**
 * Why a body was refused. `request` problems concern the envelope itself and are answered with the
 * plain error envelope; `payment` problems use the x402 response shape (VerifyResponse /
 * SettleResponse) so x402 clients read a reason.
 */
export type FacilitatorCallRefusal =
  | { kind: 'request'; code: 'malformed_request'; message: string }
  | { kind: 'payment'; reason: string; message: string; network: string };

const UINT256_MAX = (1n << 256n) - 1n;

const uintString = v.pipe(
  v.string(),
  v.regex(/^(0|[1-9][0-9]{0,77})$/, 'must be a decimal integer string'),
  // valibot runs every action of a pipe even after one failed, so this check must not assume the regex held.
  v.check((s) => /^[0-9]+$/.test(s) && BigInt(s) <= UINT256_MAX, 'must fit in uint256'),
);
const address = v.pipe(v.string(), v.check((s) => isAddress(s, { strict: false }), 'must be a 20-byte hex address'));

/** The EIP-3009 payload the exact EVM scheme settles: an authorization and the payer's signature. */
const eip3009PayloadSchema = v.object({
  authorization: v.object({
    from: address,
    to: address,
    value: uintString,
    validAfter: uintString,
    validBefore: uintString,
    nonce: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex')),
  }),
  signature: v.pipe(v.string(), v.regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be non-empty, even-length hex')),
});

const requirementsAmounts = v.object({ amount: uintString, asset: address, payTo: address });

const envelopeSchema = v.object({
  x402Version: v.number(),
  paymentPayload: v.record(v.string(), v.unknown()),
  paymentRequirements: v.record(v.string(), v.unknown()),
});

function firstIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return 'invalid';
  const path = issue.path?.map((item) => String(item.key)).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Checks a parsed `/verify` or `/settle` body against the x402 v2 facilitator wire format and the
 * kinds the facilitator supports, so that nothing malformed reaches the official scheme (whose
 * errors on bad input would otherwise surface as server errors).
 *
 * @param body - The parsed JSON body.
 * @param supported - The facilitator's `/supported` answer.
 * @returns The call to make, or why the body is refused.
 * @example
 * ```ts
 * import { checkFacilitatorCall } from './facilitator-request';
 * const checked = checkFacilitatorCall(JSON.parse(text), facilitator.getSupported());
 * if ('refusal' in checked) console.log(checked.refusal);
 * ```
 */
export function checkFacilitatorCall(body: unknown, supported: SupportedKinds): FacilitatorCall | { refusal: FacilitatorCallRefusal } {
  const envelope = v.safeParse(envelopeSchema, body);
  if (!envelope.success) {
    return {
      refusal: {
        kind: 'request',
        code: 'malformed_request',
        message: `Expected { x402Version, paymentPayload, paymentRequirements }: ${firstIssue(envelope.issues)}.`,
      },
    };
  }
  const { x402Version, paymentPayload, paymentRequirements } = envelope.output;
  const network = typeof paymentRequirements.network === 'string' ? paymentRequirements.network : '';
  const refuse = (reason: string, message: string) => ({ refusal: { kind: 'payment' as const, reason, message, network } });

  if (x402Version !== 2 || paymentPayload.x402Version !== 2) {
    return refuse('invalid_x402_version', 'Only x402 version 2 is supported.');
  }
  if (!isPaymentRequirementsV2(paymentRequirements)) {
    return refuse('invalid_payment_requirements', 'paymentRequirements is not a valid x402 v2 PaymentRequirements object.');
  }
  if (!isPaymentPayloadV2(paymentPayload)) {
    return refuse('invalid_payload', 'paymentPayload is not a valid x402 v2 PaymentPayload object.');
  }
  const kinds = supported.kinds.filter((kind) => kind.x402Version === 2);
  if (!kinds.some((kind) => kind.scheme === paymentRequirements.scheme)) {
    return refuse('unsupported_scheme', `Scheme "${paymentRequirements.scheme}" is not supported.`);
  }
  if (!kinds.some((kind) => kind.scheme === paymentRequirements.scheme && kind.network === paymentRequirements.network)) {
    return refuse('invalid_network', `Network "${paymentRequirements.network}" is not supported for scheme "${paymentRequirements.scheme}".`);
  }
  const amounts = v.safeParse(requirementsAmounts, paymentRequirements);
  if (!amounts.success) return refuse('invalid_payment_requirements', `paymentRequirements.${firstIssue(amounts.issues)}.`);

  // The dev facilitator settles EIP-3009 only: Permit2 and other transfer methods need contracts a
  // local chain does not have.
  const inner = v.safeParse(eip3009PayloadSchema, paymentPayload.payload);
  if (!inner.success) {
    const isOtherMethod = typeof paymentPayload.payload === 'object' && paymentPayload.payload !== null && !('authorization' in paymentPayload.payload);
    return isOtherMethod
      ? refuse('unsupported_payload_type', 'Only EIP-3009 authorization payloads are supported.')
      : refuse('invalid_payload', `paymentPayload.payload.${firstIssue(inner.issues)}.`);
  }
  // The official schemas validated both objects; their inferred types are looser than the core types
  // (plain `string` networks), hence the casts.
  return { paymentPayload: paymentPayload as unknown as PaymentPayload, paymentRequirements: paymentRequirements as unknown as PaymentRequirements };
}
