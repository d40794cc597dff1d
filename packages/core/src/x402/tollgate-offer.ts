import * as v from 'valibot';
import { getAddress, type Address, type Hex } from 'viem';
import { hexEncode } from '../crypto/hex';
import { randomBytes } from '../crypto/random';
import { defineEip712Struct, eip712Digest, eip712DomainSeparator, eip712Types } from './eip712';
import { PaymentVerificationError } from './errors';
import { recoverDigestSigner, sameAddress, signEip712Digest, type EvmSigner } from './evm-signature';
import { checkNetwork, type GatewayNetwork } from './network';
import { generatePaymentId } from './payment-identifier';
import { addressSchema, issuePath, networkSchema, uintStringSchema, type Network, type PaymentRequirements } from './wire';

/** EIP-712 domain of Tollgate offers: no chain id or contract, the offer is signed by the gateway's key, not for a chain. */
export const tollgateOfferDomain = { name: 'Tollgate Offer', version: '1' } as const;

const offerStruct = defineEip712Struct('TollgateOffer', [
  { name: 'gatewayOrigin', type: 'string' },
  { name: 'resourceUrl', type: 'string' },
  { name: 'paymentId', type: 'string' },
  { name: 'payTo', type: 'address' },
  { name: 'amount', type: 'uint256' },
  { name: 'network', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'asset', type: 'address' },
  { name: 'expiry', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
]);
const offerDomainSeparator = eip712DomainSeparator(tollgateOfferDomain);

/** `types` of `TollgateOffer(string gatewayOrigin,string resourceUrl,string paymentId,address payTo,uint256 amount,string network,uint256 chainId,address asset,uint256 expiry,bytes32 nonce)`. */
export const tollgateOfferTypes = eip712Types('TollgateOffer', offerStruct);

/** What a Tollgate offer promises: pay `amount` of `asset` to `payTo` on `network` for `resourceUrl` before `expiry`. */
export interface TollgateOfferPayload {
  /** The gateway's public origin, e.g. `https://pay.example.com`. */
  gatewayOrigin: string;
  /** The receive URL of the ref (the snapshot's resource URL). */
  resourceUrl: string;
  /**
   * An id the gateway minted for this offer (`pay_` + 32 hex). It names the offer only: the gateway signs
   * one offer per ref, amount and minute and hands it to every payer of that minute, so it must not be
   * reused as a payment-identifier (clients choose their own id, or none).
   */
  paymentId: string;
  payTo: Address;
  /** Atomic units, decimal string. */
  amount: string;
  /** CAIP-2. */
  network: Network;
  chainId: number;
  /** Token contract. */
  asset: Address;
  /** Unix seconds after which the offer no longer binds the gateway. */
  expiry: number;
  /** 32 random bytes, 0x hex: makes each offer unique. */
  nonce: Hex;
}

/** The offer with the gateway's EIP-712 signature (65 bytes, 0x hex), in the x402 artifact layout. */
export interface SignedTollgateOffer {
  format: 'eip712';
  payload: TollgateOfferPayload;
  signature: Hex;
}

const unixSecondsSchema = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const signedOfferSchema = v.object({
  format: v.literal('eip712'),
  payload: v.object({
    gatewayOrigin: v.string(),
    resourceUrl: v.string(),
    paymentId: v.string(),
    payTo: addressSchema,
    amount: uintStringSchema,
    network: networkSchema,
    chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
    asset: addressSchema,
    expiry: unixSecondsSchema,
    nonce: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/)),
  }),
  signature: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]+$/)),
});

/**
 * The EIP-712 digest of an offer under {@link tollgateOfferDomain}.
 *
 * @param payload - The offer.
 * @returns The 32-byte digest, 0x hex (equal to viem `hashTypedData` of {@link tollgateOfferTypedData}).
 *
 * @example
 * ```ts
 * import { hashTollgateOffer } from '@tollgate/core/x402';
 * const digest = hashTollgateOffer(offer.payload);
 * ```
 */
export function hashTollgateOffer(payload: TollgateOfferPayload): Hex {
  return `0x${hexEncode(offerDigest(payload))}`;
}

function offerDigest(payload: TollgateOfferPayload): Uint8Array {
  return eip712Digest(offerDomainSeparator, offerStruct.hash({ ...payload }));
}

/**
 * The offer as viem typed data (`domain`, `types`, `primaryType`, `message`), e.g. for
 * `verifyTypedData` in another program.
 *
 * @param payload - The offer.
 * @returns Typed data with bigint numbers.
 *
 * @example
 * ```ts
 * import { verifyTypedData } from 'viem';
 * import { tollgateOfferTypedData } from '@tollgate/core/x402';
 * await verifyTypedData({ ...tollgateOfferTypedData(offer.payload), address: gatewayAddress, signature: offer.signature });
 * ```
 */
export function tollgateOfferTypedData(payload: TollgateOfferPayload) {
  return {
    domain: { ...tollgateOfferDomain },
    types: tollgateOfferTypes,
    primaryType: 'TollgateOffer' as const,
    message: { ...payload, amount: BigInt(payload.amount), chainId: BigInt(payload.chainId), expiry: BigInt(payload.expiry) },
  };
}

/** Parameters of {@link createSignedOffer}. */
export interface CreateSignedOfferParams {
  gatewayOrigin: string;
  resourceUrl: string;
  /** The requirement the offer stands for (`buildPaymentRequirements`); gives payTo, amount, network, asset. */
  requirements: Readonly<PaymentRequirements>;
  /** Facts of the requirement's network (gives the chain id). */
  network: Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>;
  /** Unix seconds; see {@link alignedOfferExpiry} to make offers cacheable. */
  expiry: number;
  /** Default a fresh {@link generatePaymentId}. */
  paymentId?: string;
  /** Default 32 fresh random bytes. */
  nonce?: Hex;
}

/**
 * Creates and signs a Tollgate offer for a requirement. Costs one keccak-heavy hash and one ECDSA
 * signature (≈0.5 ms with a local account); an offer depends only on its inputs, so a gateway can cache
 * it per ref, amount and {@link alignedOfferExpiry} bucket and reuse it until shortly before expiry.
 *
 * @param params - Origin, resource, requirement, network, expiry and optional id and nonce.
 * @param signer - The gateway's key.
 * @returns The signed offer.
 * @throws TypeError when the requirement is not for `network` or a value cannot be encoded.
 *
 * @example
 * ```ts
 * import { createSignedOffer, tollgateOfferExtension, alignedOfferExpiry, TOLLGATE_OFFER } from '@tollgate/core/x402';
 * const offer = await createSignedOffer({ gatewayOrigin, resourceUrl, requirements: accepted, network: base, expiry: alignedOfferExpiry(now, 300, 60) }, gatewayKey);
 * extensions[TOLLGATE_OFFER] = tollgateOfferExtension(offer);
 * ```
 */
export async function createSignedOffer(params: CreateSignedOfferParams, signer: EvmSigner): Promise<SignedTollgateOffer> {
  const network = checkNetwork(params.network);
  if (params.requirements.network !== network.caip2) throw new TypeError(`requirements are for ${params.requirements.network}, not ${network.caip2}.`);
  if (!Number.isSafeInteger(params.expiry) || params.expiry < 0) throw new TypeError('expiry must be Unix seconds.');
  const payload: TollgateOfferPayload = {
    gatewayOrigin: params.gatewayOrigin,
    resourceUrl: params.resourceUrl,
    paymentId: params.paymentId ?? generatePaymentId(),
    payTo: getAddress(params.requirements.payTo),
    amount: params.requirements.amount,
    network: network.caip2,
    chainId: network.chainId,
    asset: getAddress(params.requirements.asset),
    expiry: params.expiry,
    nonce: params.nonce ?? `0x${hexEncode(randomBytes(32))}`,
  };
  const signature = await signEip712Digest(signer, offerDigest(payload), tollgateOfferTypedData(payload));
  return { format: 'eip712', payload, signature };
}

/** Options of {@link verifySignedOffer}. */
export interface VerifySignedOfferOptions {
  /** The gateway's signing address: only offers it signed are ours. */
  expectedSigner: Address;
  /** Unix seconds. */
  now: number;
  /** Offer fields that must have these values; fields left out are not compared. Addresses compare case-insensitively. */
  expected?: Partial<TollgateOfferPayload>;
}

const OFFER_FIELDS = ['gatewayOrigin', 'resourceUrl', 'paymentId', 'payTo', 'amount', 'network', 'chainId', 'asset', 'expiry', 'nonce'] as const;

/**
 * Verifies a signed Tollgate offer: its shape (`offer` / `offer.payload.<field>`, `malformed`), every
 * field given in `expected` (`offer.<field>`, `mismatch`), its expiry (`offer.expiry`, `expired` when
 * `now > expiry`) and last its signature, which must recover `expectedSigner` (`offer.signature`,
 * `unrecoverable_*` or `wrong_signer`).
 *
 * @param offer - The signed offer (untrusted, e.g. from {@link extractEchoedOffer}).
 * @param options - Signer, now and expected fields.
 * @returns The verified offer payload.
 * @throws {@link PaymentVerificationError} naming the field.
 *
 * @example
 * ```ts
 * import { verifySignedOffer } from '@tollgate/core/x402';
 * verifySignedOffer(echoed, { expectedSigner: gatewayKey.address, now, expected: { gatewayOrigin, resourceUrl, payTo, amount, network: 'eip155:8453', chainId: 8453, asset } });
 * ```
 */
export function verifySignedOffer(offer: unknown, options: VerifySignedOfferOptions): TollgateOfferPayload {
  const parsed = v.safeParse(signedOfferSchema, offer);
  if (!parsed.success) {
    const path = issuePath(parsed.issues);
    throw new PaymentVerificationError(path ? `offer.${path}` : 'offer', 'malformed', 'The signed offer is malformed.');
  }
  const { payload, signature } = parsed.output;
  const typed = payload as TollgateOfferPayload;
  for (const field of OFFER_FIELDS) {
    const wanted = options.expected?.[field];
    if (wanted === undefined) continue;
    const actual = typed[field];
    const equal = field === 'payTo' || field === 'asset' ? sameAddress(String(actual), String(wanted)) : actual === wanted;
    if (!equal) throw new PaymentVerificationError(`offer.${field}`, 'mismatch', `The signed offer's ${field} does not match this payment.`);
  }
  if (options.now > typed.expiry) throw new PaymentVerificationError('offer.expiry', 'expired', 'The signed offer has expired.', { details: { expiry: typed.expiry } });
  const recovered = recoverDigestSigner(offerDigest(typed), signature);
  if (!recovered.ok) throw new PaymentVerificationError('offer.signature', `unrecoverable_${recovered.failure}`, 'The offer signature is not a valid ECDSA signature.');
  if (!sameAddress(recovered.address, options.expectedSigner)) {
    throw new PaymentVerificationError('offer.signature', 'wrong_signer', 'The offer was not signed by this gateway.');
  }
  return typed;
}
