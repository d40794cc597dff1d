import canonicalize from 'canonicalize';
import * as v from 'valibot';
import { getAddress } from 'viem';
import { sha256 } from '../../crypto/hash';
import { GatewayError } from '../../errors/gateway';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { PaymentVerificationError } from '../../x402/errors';
import { verifyExactPayment } from '../../x402/exact-payment';
import type { Secp256k1Backend } from '../../x402/secp256k1-backend';
import { exactEvmPayloadSchema, type PaymentPayload } from '../../x402/wire';
import type { PaymentRecord } from '../store/payment-records';
import type { PaymentContext } from './payment-context';
import type { PaymentIdentity, PaymentSettings } from './payment-deps';

export type { PaymentIdentity } from './payment-deps';

/**
 * The payment id of a payment whose client sent no payment-identifier: `auth:<chainId>:<payer>:<nonce>`
 * (payer and nonce lowercase). Client ids never contain `:`, so the two namespaces cannot collide, and
 * every instance derives the same id for the same authorization.
 *
 * @param chainId - The payment's chain.
 * @param payer - `authorization.from`.
 * @param nonce - The authorization nonce.
 * @returns The id.
 *
 * @example
 * ```ts
 * import { authorizationPaymentId } from '@tollgate/core/gateway';
 * authorizationPaymentId(8453, '0xAbC…', '0x12…'); // 'auth:8453:0xabc…:0x12…'
 * ```
 */
export function authorizationPaymentId(chainId: number, payer: string, nonce: string): string {
  return `auth:${chainId}:${payer.toLowerCase()}:${nonce.toLowerCase()}`;
}

/**
 * The fingerprint that tells a replay from a different payment under the same id: lowercase hex
 * sha256 of the RFC 8785 canonical JSON of the decoded payload (key order and whitespace do not count,
 * every value does).
 *
 * @param payload - The decoded `PAYMENT-SIGNATURE` payload.
 * @returns 64 hex digits.
 *
 * @example
 * ```ts
 * import { decodePaymentSignatureHeader } from '@tollgate/core/x402';
 * import { paymentFingerprint } from '@tollgate/core/gateway';
 * const fingerprint = paymentFingerprint(decodePaymentSignatureHeader(header));
 * ```
 */
export function paymentFingerprint(payload: PaymentPayload): string {
  const canonical = canonicalize(payload);
  if (canonical === undefined) throw new TypeError('A payment payload must be a JSON object.');
  return hexEncode(sha256(utf8Encode(canonical)));
}

/**
 * Reads a payment's identity from its payload without verifying it (verification comes later, when
 * the payment is new). `undefined` when the EIP-3009 payload is malformed: full verification then
 * names the field.
 *
 * @param payload - The decoded payload.
 * @param chainId - The chain of the ref's network.
 * @param clientPaymentId - The id from `extractPaymentIdentifier`, when the client sent one.
 * @returns The identity, or `undefined`.
 *
 * @example
 * ```ts
 * import { extractPaymentIdentifier } from '@tollgate/core/x402';
 * import { identifyPayment } from '@tollgate/core/gateway';
 * const identity = identifyPayment(payload, 8453, extractPaymentIdentifier(payload));
 * ```
 */
export function identifyPayment(payload: PaymentPayload, chainId: number, clientPaymentId: string | undefined): PaymentIdentity | undefined {
  const parsed = v.safeParse(exactEvmPayloadSchema, payload.payload);
  if (!parsed.success) return undefined;
  const { authorization } = parsed.output;
  const payer = getAddress(authorization.from);
  const nonce = authorization.nonce.toLowerCase();
  return {
    paymentId: clientPaymentId ?? authorizationPaymentId(chainId, payer, nonce),
    chainId,
    payer,
    nonce,
    validBefore: authorization.validBefore,
    validAfter: authorization.validAfter,
    fingerprint: paymentFingerprint(payload),
  };
}

/** Why a submission is refused as another payment's: see {@link paymentConflict}. */
export type PaymentConflictReason = 'payload_mismatch' | 'authorization_in_use' | 'other_ref' | 'ref_used';

const conflictMessages: Record<PaymentConflictReason, string> = {
  payload_mismatch: 'This payment id was already used with a different payment payload.',
  authorization_in_use: 'This EIP-3009 authorization already belongs to another payment id.',
  other_ref: 'This payment belongs to another ref or amount.',
  ref_used: 'This ref takes one payment (a refund, or an order), and another payment already holds it (in flight or settled).',
};

/**
 * The `conflict` (409) refusal of a submission that collides with another payment: its id was used with
 * another payload, its authorization belongs to another payment id, it belongs to another ref, or its ref
 * takes one payment and another holds it (`ref_used`: a refund ref or an order's ref).
 *
 * @param paymentId - The submission's payment id.
 * @param reason - Which collision.
 * @returns The error, `details: { paymentId, reason }`.
 *
 * @example
 * ```ts
 * import { paymentConflict } from '@tollgate/core/gateway';
 * throw paymentConflict('pay_1', 'payload_mismatch');
 * ```
 */
export function paymentConflict(paymentId: string, reason: PaymentConflictReason): GatewayError {
  return new GatewayError('conflict', conflictMessages[reason], { details: { paymentId, reason } });
}

/**
 * Refuses an earlier payment that is not this submission: the authorization held by another payment id
 * (`authorization_in_use`), or this id held by another payload (`payload_mismatch`). Both settlement and
 * recovery answer an earlier payment only to the payload that made it.
 *
 * @param found - The payment `PaymentStore.findPayment` returned for `identity`.
 * @param identity - The submission.
 * @throws GatewayError `conflict` (see {@link paymentConflict}).
 *
 * @example
 * ```ts
 * import { assertSamePayment } from '@tollgate/core/gateway';
 * const found = await stores.payments.findPayment(identity);
 * if (found !== undefined) assertSamePayment(found, identity);
 * ```
 */
export function assertSamePayment(found: Pick<PaymentRecord, 'paymentId' | 'fingerprint'>, identity: PaymentIdentity): void {
  if (found.paymentId !== identity.paymentId) throw paymentConflict(identity.paymentId, 'authorization_in_use');
  if (found.fingerprint !== identity.fingerprint) throw paymentConflict(identity.paymentId, 'payload_mismatch');
}

/** What {@link isSettledTwin} verifies a twin's signed terms with. */
export interface TwinCheck {
  /** Now, in Unix seconds (clamped into the authorization's validity: a settled one may have expired since). */
  readonly nowSeconds: number;
  readonly settings: Pick<PaymentSettings, 'clockSkewSeconds' | 'minValiditySeconds'>;
  readonly secp256k1?: Secp256k1Backend | undefined;
}

/**
 * Whether `payload` is a "twin" of the settled payment `found`: another payload of the same executed
 * authorization (another payment id, or any other unsigned field changed) for the same ref and amount,
 * whose signed terms verify against the ref's requirements. Once executed, the authorization and its
 * signature are public in the settling calldata, so a stranger who recorded a twin first must not lock
 * the payer out of its answer: settlement and recovery both give a twin the stored answer, byte for byte,
 * and never call the facilitator for it. Only a settled payment with an answer qualifies (claimed,
 * pending and failed ones stay a `conflict`: their answer is not a chain-backed fact yet). The signature
 * is judged only where it can be recovered offline (a smart wallet's is left to the terms: every signed
 * term must equal the executed one's). A twin that does not verify is not a twin: `false`, and the
 * caller keeps its `conflict`.
 *
 * @param found - The payment recorded for `identity`'s authorization.
 * @param payload - The submission.
 * @param context - The ref and amount asked about.
 * @param identity - The submission's identity.
 * @param check - Clock and verification settings.
 * @returns `true` when the stored answer may be given.
 *
 * @example
 * ```ts
 * import { isSettledTwin } from './payment-identity';
 * if (found.answer !== null && isSettledTwin(found, payload, context, identity, { nowSeconds, settings })) return found.answer;
 * ```
 */
export function isSettledTwin(found: PaymentRecord, payload: PaymentPayload, context: PaymentContext, identity: PaymentIdentity, check: TwinCheck): boolean {
  if (found.state !== 'settled' || found.answer === null || found.chainId !== identity.chainId) return false;
  if (found.payer !== identity.payer || found.nonce !== identity.nonce || found.validBefore !== identity.validBefore || found.validAfter !== identity.validAfter) return false;
  if (found.refId !== context.ref.id || found.amount !== context.amount) return false;
  const { clockSkewSeconds, minValiditySeconds } = check.settings;
  // The last moment the authorization was acceptable: an executed one is judged as of then at the latest.
  const at = Math.min(check.nowSeconds, Number(BigInt(identity.validBefore) - BigInt(minValiditySeconds)));
  try {
    verifyExactPayment({
      payload,
      expected: context.requirements,
      network: context.network,
      now: at,
      clockSkewSeconds,
      minValiditySeconds,
      ...(check.secp256k1 === undefined ? {} : { secp256k1: check.secp256k1 }),
    });
  } catch (error) {
    if (error instanceof PaymentVerificationError) return false;
    throw error;
  }
  return true;
}

/**
 * {@link assertSamePayment}, with the one exception settlement and recovery share: a twin of a settled
 * payment ({@link isSettledTwin}) is answered, not refused.
 *
 * @returns `same` (this submission's own payment) or `twin` (give it `found`'s stored answer, call nothing).
 * @throws GatewayError `conflict`, as {@link assertSamePayment}.
 *
 * @example
 * ```ts
 * import { assertSamePaymentOrTwin } from './payment-identity';
 * if (assertSamePaymentOrTwin(found, identity, payload, context, { nowSeconds, settings }) === 'twin') return found.answer;
 * ```
 */
export function assertSamePaymentOrTwin(found: PaymentRecord, identity: PaymentIdentity, payload: PaymentPayload, context: PaymentContext, check: TwinCheck): 'same' | 'twin' {
  try {
    assertSamePayment(found, identity);
    return 'same';
  } catch (error) {
    if (isSettledTwin(found, payload, context, identity, check)) return 'twin';
    throw error;
  }
}
