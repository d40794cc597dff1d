import * as v from 'valibot';

/**
 * x402 v2 wire types and their valibot schemas, shaped exactly like `@x402/core/types` 2.27 (the
 * official TypeScript SDK) so values cross between Tollgate and official clients and facilitators
 * unchanged. The schemas are as lenient as the official zod schemas where the official ones are (a
 * peer that the reference server accepts is accepted here), keep unknown keys (`looseObject`) so a
 * decoded `accepted` can be compared with every key the client sent, and refuse everything else.
 */

/** A CAIP-2 network id such as `eip155:8453` (x402 v2 uses CAIP-2 only). */
export type Network = `${string}:${string}`;

/** What is being paid for (`PaymentRequired.resource`, optionally echoed in `PaymentPayload.resource`). */
export interface ResourceInfo {
  url: string;
  description?: string;
  mimeType?: string;
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
}

/** One way to pay, an entry of `PaymentRequired.accepts` and the payload's `accepted`. */
export interface PaymentRequirements {
  scheme: string;
  network: Network;
  /** Atomic units as a decimal string. */
  amount: string;
  /** Token contract address. */
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  /** Scheme data; for `exact` on EVM the token's EIP-712 domain `{ name, version }`. */
  extra: Record<string, unknown>;
}

/** An extension entry: the server's `info` and the JSON Schema of `info` (spec §5.1.2). */
export interface ExtensionEntry<Info = Record<string, unknown>> {
  info: Info;
  schema: Record<string, unknown>;
}

/** The body of the `PAYMENT-REQUIRED` header. */
export interface PaymentRequired {
  x402Version: 2;
  error?: string;
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  extensions?: Record<string, unknown>;
}

/** The body of the `PAYMENT-SIGNATURE` header. `payload` is scheme-specific (see `exactEvmPayloadSchema`). */
export interface PaymentPayload {
  x402Version: 2;
  resource?: ResourceInfo;
  accepted: PaymentRequirements;
  payload: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/** The EIP-3009 authorization of the `exact` EVM scheme; numbers are decimal strings. */
export interface ExactEvmAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  /** 32 bytes, 0x hex. */
  nonce: `0x${string}`;
}

/** `PaymentPayload.payload` of the `exact` EVM scheme with EIP-3009. */
export interface ExactEvmPayload {
  authorization: ExactEvmAuthorization;
  /** The payer's signature, 0x hex: 65 bytes for an EOA, longer for smart wallets (ERC-1271/6492). */
  signature: `0x${string}`;
}

/** A facilitator's `/verify` answer. */
export interface VerifyResponse {
  isValid: boolean;
  invalidReason?: string;
  invalidMessage?: string;
  payer?: string;
  extensions?: Record<string, unknown>;
}

/** A facilitator's `/settle` answer (also the base of `PAYMENT-RESPONSE`). `transaction` is `''` when nothing was broadcast. */
export interface SettleResponse {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  transaction: string;
  network: Network;
  amount?: string;
  extensions?: Record<string, unknown>;
}

/** One `(x402Version, scheme, network)` a facilitator serves. */
export interface SupportedKind {
  x402Version: number;
  scheme: string;
  network: Network;
  extra?: Record<string, unknown>;
}

/** A facilitator's `/supported` answer. */
export interface SupportedResponse {
  kinds: SupportedKind[];
  extensions: string[];
  /** Settlement signer addresses per CAIP family, e.g. `{ "eip155:*": ["0x…"] }`. */
  signers: Record<string, string[]>;
}

const UINT256_MAX = (1n << 256n) - 1n;
const nonEmptyString = v.pipe(v.string(), v.minLength(1));
// valibot's record schema turns an array into `{}`; x402 means JSON objects, so arrays are refused.
const record = v.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'must be an object');
/** `null` and absence mean "none", as in the official schemas (`nullish().transform(v => v ?? undefined)`). */
const optionalString = v.pipe(v.nullish(v.string()), v.transform((value) => value ?? undefined));
const optionalRecord = v.pipe(v.nullish(record), v.transform((value) => value ?? undefined));

/** A CAIP-2 network id: at least 3 characters with a colon (the official `NetworkSchemaV2`). */
export const networkSchema = v.pipe(v.string(), v.minLength(3), v.includes(':'), v.transform((value) => value as Network));

/** A decimal uint256 without sign, leading zeros or exponent. */
export const uintStringSchema = v.pipe(
  v.string(),
  v.regex(/^(0|[1-9][0-9]{0,77})$/, 'must be a decimal integer string'),
  // valibot runs every action of a pipe even after one failed, so this check must not assume the regex held.
  v.check((text) => /^[0-9]{1,78}$/.test(text) && BigInt(text) <= UINT256_MAX, 'must fit in uint256'),
);

/** A 20-byte 0x hex address in any letter case. */
export const addressSchema = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte 0x hex address'));

/** x402 v2 `ResourceInfo`. */
export const resourceInfoSchema = v.looseObject({
  url: nonEmptyString,
  description: optionalString,
  mimeType: optionalString,
  serviceName: optionalString,
  tags: v.pipe(v.nullish(v.array(v.string())), v.transform((value) => value ?? undefined)),
  iconUrl: optionalString,
});

/** x402 v2 `PaymentRequirements`; a missing or `null` `extra` reads as `{}`. */
export const paymentRequirementsSchema = v.looseObject({
  scheme: nonEmptyString,
  network: networkSchema,
  amount: nonEmptyString,
  asset: nonEmptyString,
  payTo: nonEmptyString,
  maxTimeoutSeconds: v.pipe(v.number(), v.gtValue(0)),
  // A default (not a transform) so that an absent key is filled in too.
  extra: v.nullish(record, () => ({})),
});

/** x402 v2 `PaymentRequired` (the `PAYMENT-REQUIRED` header body). */
export const paymentRequiredSchema = v.looseObject({
  x402Version: v.literal(2),
  error: optionalString,
  resource: resourceInfoSchema,
  accepts: v.pipe(v.array(paymentRequirementsSchema), v.minLength(1)),
  extensions: optionalRecord,
});

/** x402 v2 `PaymentPayload` (the `PAYMENT-SIGNATURE` header body), with a scheme-agnostic `payload`. */
export const paymentPayloadSchema = v.looseObject({
  x402Version: v.literal(2),
  resource: v.pipe(v.nullish(resourceInfoSchema), v.transform((value) => value ?? undefined)),
  accepted: paymentRequirementsSchema,
  payload: record,
  extensions: optionalRecord,
});

/** `PaymentPayload.payload` of the `exact` EVM scheme with EIP-3009 (strict: unknown keys are dropped). */
export const exactEvmPayloadSchema = v.object({
  authorization: v.object({
    from: addressSchema,
    to: addressSchema,
    value: uintStringSchema,
    validAfter: uintStringSchema,
    validBefore: uintStringSchema,
    nonce: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x hex'), v.transform((value) => value as `0x${string}`)),
  }),
  signature: v.pipe(v.string(), v.regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be non-empty, even-length 0x hex'), v.transform((value) => value as `0x${string}`)),
});

/** A facilitator's `VerifyResponse`. */
export const verifyResponseSchema = v.looseObject({
  isValid: v.boolean(),
  invalidReason: optionalString,
  invalidMessage: optionalString,
  payer: optionalString,
  extensions: optionalRecord,
});

/** A facilitator's `SettleResponse` (also accepts Tollgate's richer `PAYMENT-RESPONSE` bodies). */
export const settleResponseSchema = v.looseObject({
  success: v.boolean(),
  errorReason: optionalString,
  errorMessage: optionalString,
  payer: optionalString,
  transaction: v.string(),
  network: networkSchema,
  amount: optionalString,
  extensions: optionalRecord,
});

/** A facilitator's `SupportedResponse`; missing `extensions`/`signers` read as empty (older facilitators omit them). */
export const supportedResponseSchema = v.looseObject({
  kinds: v.array(
    v.looseObject({
      x402Version: v.number(),
      scheme: nonEmptyString,
      network: networkSchema,
      extra: optionalRecord,
    }),
  ),
  extensions: v.nullish(v.array(v.string()), () => []),
  signers: v.nullish(v.record(v.string(), v.array(v.string())), () => ({})),
});

/** An extension entry `{ info, schema }`; `schema` may be absent in what clients echo. */
export const extensionEntrySchema = v.looseObject({ info: record, schema: v.optional(record) });

/**
 * The dotted path of the first valibot issue (`accepted.amount`), or `''` for the root.
 *
 * @param issues - Issues of a failed `safeParse`.
 * @returns The path, e.g. `authorization.nonce`.
 */
export function issuePath(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues[0]?.path?.map((item) => String(item.key)).join('.') ?? '';
}
