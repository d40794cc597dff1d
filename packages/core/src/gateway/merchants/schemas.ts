import * as v from 'valibot';
import { evmAddressSchema, networkFieldSchema, publicHttpsUrlSchema, utf8TextSchema } from '../../fields/schema-fields';
import { merchantRegisterAction } from './challenge-message';

/** Longest merchant label, in UTF-8 bytes (the same bound as a ref label). */
export const maxMerchantLabelBytes = 120;

/** Longest signature accepted at registration, in bytes (ERC-6492 wrapped signatures are long). */
export const maxRegistrationSignatureBytes = 4096;

/**
 * Body of `POST /merchant/challenge`. Unknown fields are refused, so a typo never goes unnoticed.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { challengeRequestSchema } from '@tollgate/core/gateway';
 * const input = v.parse(challengeRequestSchema, { payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.register' });
 * ```
 */
export const challengeRequestSchema = v.strictObject({
  payTo: evmAddressSchema,
  network: networkFieldSchema,
  action: v.literal(merchantRegisterAction, `the value ${merchantRegisterAction}`),
  webhookUrl: v.optional(publicHttpsUrlSchema),
});

/** Validated body of `POST /merchant/challenge`. */
export type ChallengeRequest = v.InferOutput<typeof challengeRequestSchema>;

/**
 * Body of `POST /merchant/register`.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { registerRequestSchema } from '@tollgate/core/gateway';
 * const input = v.parse(registerRequestSchema, { challengeId, payTo, network: 'base', label: 'My shop', signature });
 * ```
 */
export const registerRequestSchema = v.strictObject({
  challengeId: v.pipe(v.string('a challenge id'), v.regex(/^[0-9a-f]{32}$/, 'a challenge id (32 lowercase hex digits)')),
  payTo: evmAddressSchema,
  network: networkFieldSchema,
  label: utf8TextSchema(maxMerchantLabelBytes),
  webhookUrl: v.optional(publicHttpsUrlSchema),
  signature: v.pipe(
    v.string('a hex signature'),
    v.regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'a 0x-prefixed hex signature'),
    v.maxLength(2 + 2 * maxRegistrationSignatureBytes, `a signature of at most ${maxRegistrationSignatureBytes} bytes`),
    v.transform((value) => value as `0x${string}`),
  ),
});

/** Validated body of `POST /merchant/register`. */
export type RegisterRequest = v.InferOutput<typeof registerRequestSchema>;

/**
 * Body of `POST /merchant/rotate-key` and `POST /merchant/revoke-key`: which credential.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { credentialRequestSchema } from '@tollgate/core/gateway';
 * v.parse(credentialRequestSchema, { credential: 'api' });
 * ```
 */
export const credentialRequestSchema = v.strictObject({
  credential: v.picklist(['api', 'notify'], 'api or notify'),
});

/** Validated body of the key routes. */
export type CredentialRequest = v.InferOutput<typeof credentialRequestSchema>;
