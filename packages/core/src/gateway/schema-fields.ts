import * as v from 'valibot';
import { getAddress, isAddress, type Address } from 'viem';
import { checkPublicHttpsUrl } from '../net/url-safety';

/**
 * An EVM address, EIP-55 checksummed or all-lowercase, output in EIP-55 form. A mixed-case address
 * with a wrong checksum is refused: it is most likely a typo.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { evmAddressSchema } from '@tollgate/core/gateway';
 * v.parse(evmAddressSchema, '0x90f79bf6eb2c4f870365e785982e1f101e93b906'); // '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
 * ```
 */
export const evmAddressSchema = v.pipe(
  v.string('an EVM address (0x followed by 40 hex digits)'),
  v.check((value) => isAddress(value), 'an EVM address (0x followed by 40 hex digits) with a valid checksum'),
  v.transform((value) => getAddress(value) as Address),
);

/**
 * A network name as the API takes it (checked against the registry by the services).
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { networkFieldSchema } from '@tollgate/core/gateway';
 * v.parse(networkFieldSchema, 'base'); // 'base'
 * ```
 */
export const networkFieldSchema = v.pipe(v.string('a network name'), v.minLength(1, 'a network name'), v.maxLength(64, 'a network name'));

// C0 and C1 controls, DEL, and U+2028/9: invisible in most UIs and refused by Postgres (U+0000).
const singleLineControls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const multiLineControls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const loneSurrogate = /\p{Surrogate}/u;

/**
 * Free text bounded in UTF-8 bytes (not characters: an emoji is 4 bytes), well-formed Unicode (no lone
 * surrogate), without control characters (`multiline` allows tab and line breaks), at least one character.
 *
 * @param maxBytes - Largest UTF-8 size.
 * @param options - `multiline: true` for descriptions.
 * @returns The schema.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { utf8TextSchema } from '@tollgate/core/gateway';
 * v.parse(utf8TextSchema(120), 'Café order #12');
 * ```
 */
export function utf8TextSchema(maxBytes: number, options: { multiline?: boolean } = {}) {
  const controls = options.multiline ? multiLineControls : singleLineControls;
  return v.pipe(
    v.string('a string'),
    v.minLength(1, 'a non-empty string'),
    v.check((value) => !loneSurrogate.test(value), 'well-formed Unicode text (no unpaired surrogate)'),
    v.check((value) => !controls.test(value), options.multiline ? 'text without control characters other than tab and line breaks' : 'text without control characters'),
    v.maxBytes(maxBytes, `at most ${maxBytes} UTF-8 bytes`),
  );
}

/**
 * A public HTTPS URL on port 443 (see `checkPublicHttpsUrl`); the output is the URL exactly as sent.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { publicHttpsUrlSchema } from '@tollgate/core/gateway';
 * v.parse(publicHttpsUrlSchema, 'https://hooks.example.com/tollgate');
 * ```
 */
export const publicHttpsUrlSchema = v.pipe(
  v.string('a public HTTPS URL'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const verdict = checkPublicHttpsUrl(dataset.value);
    if (!verdict.ok) addIssue({ message: verdict.message });
  }),
);
