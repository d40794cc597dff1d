import { randomId } from '../crypto/random';
import { PaymentVerificationError } from './errors';
import type { ExtensionEntry, PaymentPayload } from './wire';

/** The extension key, as in `@x402/extensions/payment-identifier`. */
export const PAYMENT_IDENTIFIER = 'payment-identifier';

/** The id rules of the extension: 16–128 characters of `[a-zA-Z0-9_-]`. */
export const PAYMENT_ID_PATTERN = /^[a-zA-Z0-9_-]{16,128}$/;

/** The declaration's JSON Schema, byte-identical to the official `paymentIdentifierSchema`. */
export const paymentIdentifierSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    required: { type: 'boolean' },
    id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' },
  },
  required: ['required'],
} as const;

/** `info` of the payment-identifier extension. */
export interface PaymentIdentifierInfo {
  required: boolean;
  id?: string;
}

/**
 * Declares the payment-identifier extension for `PaymentRequired.extensions`. Tollgate declares
 * `required: false` by default: official clients only add an id when their app registers the extension
 * hook, so requiring one would lock out every plain `@x402/fetch` client, and exactly-once settlement
 * does not depend on it (without an id the gateway claims the payment by the EIP-3009 nonce and payer).
 * An id still helps a client retry safely and read the stored result.
 *
 * @param options - `required` (default `false`).
 * @returns `{ info: { required }, schema }`, equal to the official `declarePaymentIdentifierExtension`.
 *
 * @example
 * ```ts
 * import { declarePaymentIdentifier, PAYMENT_IDENTIFIER } from '@tollgate/core/x402';
 * const extensions = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifier() };
 * ```
 */
export function declarePaymentIdentifier(options: { required?: boolean } = {}): ExtensionEntry<PaymentIdentifierInfo> {
  return { info: { required: options.required ?? false }, schema: paymentIdentifierSchema };
}

/**
 * True when `id` satisfies the payment-identifier rules (16–128 characters of `[a-zA-Z0-9_-]`).
 *
 * @param id - Anything.
 * @returns Whether it is a valid payment id.
 *
 * @example
 * ```ts
 * import { isValidPaymentId } from '@tollgate/core/x402';
 * isValidPaymentId('pay_7d5d747be160e280504c099d984bcfe0'); // true
 * ```
 */
export function isValidPaymentId(id: unknown): id is string {
  return typeof id === 'string' && PAYMENT_ID_PATTERN.test(id);
}

/**
 * A fresh payment id, `pay_` + 32 lowercase hex digits (the official generator's format).
 *
 * @returns The id.
 *
 * @example
 * ```ts
 * import { generatePaymentId } from '@tollgate/core/x402';
 * generatePaymentId(); // 'pay_3f1c…'
 * ```
 */
export function generatePaymentId(): string {
  return `pay_${randomId()}`;
}

/**
 * Reads the client's payment id from `payload.extensions['payment-identifier'].info.id`.
 *
 * - No extension, or the echoed declaration without an `id` → `undefined` (unless `required`).
 * - An extension that is not `{ info: { … } }`, or an `id` that breaks the rules → refused.
 *
 * @param payload - The decoded payment payload.
 * @param options - `required`: refuse a payload without an id (when the gateway declared `required: true`).
 * @returns The id, or `undefined` when the client sent none.
 * @throws {@link PaymentVerificationError} with code `invalid_request`, `field`
 *   `extensions.payment-identifier` (`malformed`, `missing`) or `extensions.payment-identifier.info.id` (`malformed`).
 *
 * @example
 * ```ts
 * import { extractPaymentIdentifier } from '@tollgate/core/x402';
 * const paymentId = extractPaymentIdentifier(payload); // 'pay_…' or undefined
 * ```
 */
export function extractPaymentIdentifier(payload: PaymentPayload, options: { required?: boolean } = {}): string | undefined {
  const field = `extensions.${PAYMENT_IDENTIFIER}`;
  const entry = payload.extensions?.[PAYMENT_IDENTIFIER];
  let id: unknown;
  if (entry !== undefined) {
    const info = typeof entry === 'object' && entry !== null ? (entry as { info?: unknown }).info : undefined;
    if (typeof info !== 'object' || info === null || Array.isArray(info)) {
      throw new PaymentVerificationError(field, 'malformed', 'The payment-identifier extension must be { info: { id } }.', { code: 'invalid_request' });
    }
    id = (info as { id?: unknown }).id;
    if (id !== undefined && !isValidPaymentId(id)) {
      throw new PaymentVerificationError(`${field}.info.id`, 'malformed', 'A payment id must be 16-128 characters of letters, digits, "_" and "-".', {
        code: 'invalid_request',
      });
    }
  }
  if (id === undefined && options.required) {
    throw new PaymentVerificationError(field, 'missing', 'This payment requires a payment-identifier id.', { code: 'invalid_request' });
  }
  return id as string | undefined;
}
