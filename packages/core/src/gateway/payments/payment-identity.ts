import canonicalize from 'canonicalize';
import * as v from 'valibot';
import { getAddress, type Address } from 'viem';
import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { exactEvmPayloadSchema, type PaymentPayload } from '../../x402/wire';

/** Who a payment is, before it is verified: enough to find an earlier submission of it. */
export interface PaymentIdentity {
  /** The client's payment-identifier id, else {@link authorizationPaymentId}. */
  readonly paymentId: string;
  readonly chainId: number;
  /** `authorization.from`, checksummed. */
  readonly payer: Address;
  /** The EIP-3009 nonce, lowercase. */
  readonly nonce: string;
  readonly validBefore: string;
  readonly validAfter: string;
  /** {@link paymentFingerprint} of the payload. */
  readonly fingerprint: string;
}

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
 * import { decodePaymentSignatureHeader } from '@tollgate/core';
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
 * import { extractPaymentIdentifier } from '@tollgate/core';
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
