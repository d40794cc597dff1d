import * as v from 'valibot';
import { getAddress, type Address, type Hex } from 'viem';
import { transferWithAuthorizationDigest } from './eip3009';
import { PaymentVerificationError } from './errors';
import { recoverDigestSigner, sameAddress } from './evm-signature';
import type { Secp256k1Backend } from './secp256k1-backend';
import { checkNetwork, type GatewayNetwork } from './network';
import { findRequirementsMismatch } from './requirements';
import { exactEvmPayloadSchema, issuePath, type ExactEvmAuthorization, type PaymentPayload, type PaymentRequirements } from './wire';

/** Parameters of {@link verifyExactPayment}. */
export interface VerifyExactPaymentParams {
  /** The decoded `PAYMENT-SIGNATURE` payload (from `decodePaymentSignatureHeader`). */
  payload: PaymentPayload;
  /** The requirement regenerated for this ref and amount (`buildPaymentRequirements`). */
  expected: Readonly<PaymentRequirements>;
  /** Facts of the network `expected` is for. */
  network: Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>;
  /** Now, in Unix seconds (from the injected clock). */
  now: number;
  /**
   * How far a payer's clock may run ahead: `validAfter` may lie this far in the future, and `validBefore`
   * this far beyond now + `expected.maxTimeoutSeconds`. Default 60.
   */
  clockSkewSeconds?: number;
  /**
   * How long the authorization must still be valid: settlement needs time to reach the chain, and the
   * official facilitator itself refuses less than 6 s. Default 10.
   */
  minValiditySeconds?: number;
  /**
   * The curve arithmetic of the signer recovery (default `nobleSecp256k1`). The checks do not depend
   * on it: a faster backend (libsecp256k1 on Node) accepts and refuses exactly the same payments.
   */
  secp256k1?: Secp256k1Backend;
}

/**
 * How far the payer's signature was checked: `verified` (a 65-byte ECDSA signature recovered
 * `authorization.from` under the token's domain), or `needs_facilitator` (a smart-wallet signature,
 * ERC-1271 or ERC-6492 wrapped, which only a chain read can check: rely on the facilitator's /verify).
 */
export type ExactSignatureStatus = 'verified' | 'needs_facilitator';

/** What {@link verifyExactPayment} vouches for. */
export interface VerifiedExactPayment {
  /** `authorization.from`, checksummed. */
  payer: Address;
  authorization: ExactEvmAuthorization;
  signature: Hex;
  signatureStatus: ExactSignatureStatus;
}

function refuse(field: string, reason: string, message: string, details?: Record<string, unknown>): never {
  throw new PaymentVerificationError(field, reason, message, { details });
}

/**
 * Verifies an x402 `exact` EIP-3009 payment offline, before any facilitator call, in this order (cheap
 * checks first, signature recovery last); the first failure throws with its `field`:
 *
 * | field | refused when |
 * |---|---|
 * | `x402Version` | not 2 |
 * | `scheme` | `accepted.scheme` is not `exact` |
 * | `network` | `accepted.network` is not this network |
 * | `accepted` | `accepted` differs from `expected` (`details.path` names where) |
 * | `authorization.*`, `signature` (`malformed`) | the EIP-3009 payload does not have its shape (`authorization.nonce` not 32 bytes, …) |
 * | `authorization.to` | not `expected.payTo` |
 * | `authorization.value` | not `expected.amount` |
 * | `authorization.validAfter` | later than now + `clockSkewSeconds` |
 * | `authorization.validBefore` | not after `validAfter`, already passed (`expired`), sooner than now + `minValiditySeconds` (`too_soon`), or later than now + `expected.maxTimeoutSeconds` + `clockSkewSeconds` (`too_late`: an authorization valid for years would keep a payment whose broadcast was dropped pending for as long) |
 * | `signature` | a 65-byte signature that does not recover `from` under `{ name, version, chainId, verifyingContract: asset }` |
 *
 * Signatures of any other length belong to smart wallets and are not refused: the result says
 * `signatureStatus: 'needs_facilitator'`. Signer recovery runs `recoverDigestSigner` over a cached domain
 * separator (identical results to viem's `recoverTypedDataAddress`), on `params.secp256k1`.
 *
 * @param params - Payload, regenerated requirement, network, now and tolerances.
 * @returns The payer, the authorization and how far the signature was checked.
 * @throws {@link PaymentVerificationError} (`payment_verification_failed`) naming the field.
 * @throws TypeError when `expected` is not for `network` (a caller bug).
 *
 * @example
 * ```ts
 * import { unixSeconds } from '@tollgate/core';
 * import { decodePaymentSignatureHeader, verifyExactPayment } from '@tollgate/core/x402';
 * const payload = decodePaymentSignatureHeader(header);
 * const { payer, authorization } = verifyExactPayment({ payload, expected: accepted, network: base, now: unixSeconds(clock) });
 * ```
 */
export function verifyExactPayment(params: VerifyExactPaymentParams): VerifiedExactPayment {
  const { payload, expected, now } = params;
  const network = checkNetwork(params.network);
  const skew = params.clockSkewSeconds ?? 60;
  const minValidity = params.minValiditySeconds ?? 10;
  if (expected.network !== network.caip2) throw new TypeError(`expected is for ${expected.network}, not ${network.caip2}.`);
  if (!Number.isSafeInteger(now)) throw new TypeError('now must be Unix seconds.');

  if (payload.x402Version !== 2) refuse('x402Version', 'unsupported', 'Only x402Version 2 is supported.');
  const accepted: unknown = payload.accepted;
  const acceptedFields = (typeof accepted === 'object' && accepted !== null ? accepted : {}) as Partial<PaymentRequirements>;
  if (acceptedFields.scheme !== 'exact') refuse('scheme', 'unsupported', 'Only the exact scheme is accepted.');
  if (acceptedFields.network !== network.caip2) refuse('network', 'mismatch', `The payment is for another network than ${network.caip2}.`);
  const mismatch = findRequirementsMismatch(accepted, expected);
  if (mismatch !== undefined) refuse('accepted', 'mismatch', `accepted differs from the payment requirements at ${mismatch}.`, { path: mismatch });

  const parsed = v.safeParse(exactEvmPayloadSchema, payload.payload);
  if (!parsed.success) {
    const field = issuePath(parsed.issues) || 'payload';
    refuse(field, 'malformed', `The EIP-3009 payload is malformed at ${field}: ${parsed.issues[0]?.message}.`);
  }
  const { authorization, signature } = parsed.output;

  if (!sameAddress(authorization.to, expected.payTo)) refuse('authorization.to', 'mismatch', 'The authorization pays another address than payTo.');
  if (BigInt(authorization.value) !== BigInt(expected.amount)) refuse('authorization.value', 'mismatch', 'The authorization moves another amount than required.');
  const validAfter = BigInt(authorization.validAfter);
  const validBefore = BigInt(authorization.validBefore);
  if (validAfter > BigInt(now + skew)) {
    refuse('authorization.validAfter', 'not_yet_valid', `The authorization only becomes valid in ${validAfter - BigInt(now)} s.`, { clockSkewSeconds: skew });
  }
  if (validBefore <= validAfter) refuse('authorization.validBefore', 'before_valid_after', 'validBefore is not after validAfter.');
  if (validBefore <= BigInt(now)) refuse('authorization.validBefore', 'expired', 'The authorization has expired.');
  if (validBefore < BigInt(now + minValidity)) {
    refuse('authorization.validBefore', 'too_soon', `The authorization expires in less than ${minValidity} s.`, { minValiditySeconds: minValidity });
  }
  const maxValidity = expected.maxTimeoutSeconds + skew;
  if (validBefore > BigInt(now + maxValidity)) {
    refuse('authorization.validBefore', 'too_late', `The authorization stays valid for more than ${maxValidity} s (maxTimeoutSeconds ${expected.maxTimeoutSeconds} plus ${skew} s of clock skew).`, {
      maxTimeoutSeconds: expected.maxTimeoutSeconds,
      clockSkewSeconds: skew,
    });
  }

  const payer = getAddress(authorization.from);
  // Smart wallets sign with ERC-1271 (any length) or wrap with ERC-6492; only a chain read can check those.
  if (signature.length !== 132) return { payer, authorization, signature, signatureStatus: 'needs_facilitator' };
  const recovered = recoverDigestSigner(transferWithAuthorizationDigest(network, authorization), signature, params.secp256k1);
  if (!recovered.ok) refuse('signature', `unrecoverable_${recovered.failure}`, 'The signature is not a valid ECDSA signature.');
  if (recovered.address !== payer) refuse('signature', 'signer_mismatch', 'The signature was not made by authorization.from under the token domain.');
  return { payer, authorization, signature, signatureStatus: 'verified' };
}
