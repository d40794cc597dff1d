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

// C0 and C1 controls and DEL: invisible in most UIs, and U+0000 is refused by Postgres. Descriptions keep
// tab, LF and CRLF (text pasted from a form); a lone CR is refused because terminals and logs use it to
// overwrite what came before.
const singleLineControls = /[\u0000-\u001f\u007f-\u009f]/;
const multiLineControls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;
// Characters that change how the text around them is shown without being seen: bidirectional marks,
// embeddings, overrides and isolates (U+061C, U+200E/F, U+202A–E, U+2066–9: "evil\u202eexe.txt" shows as
// "eviltxt.exe"), line and paragraph separators (U+2028/9), zero-width space, word joiner and invisible
// operators (U+200B, U+2060–4), deprecated format controls (U+206A–F), the byte order mark (U+FEFF),
// interlinear annotation controls (U+FFF9–B) and the Mongolian vowel separator (U+180E). ZWJ and ZWNJ
// (U+200C/D) and variation selectors stay allowed: emoji sequences and several scripts need them.
const invisibleFormatting = /[\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/;
// Tag characters carry invisible ASCII ("ASCII smuggling"); they are allowed only inside an emoji tag
// sequence (black flag, tags, cancel tag: the flags of England, Scotland and Wales).
const tagCharacterOrFlag = /\u{1f3f4}[\u{e0020}-\u{e007e}]+\u{e007f}|[\u{e0000}-\u{e007f}]/gu;
const loneSurrogate = /\p{Surrogate}/u;

/** Where `pattern` (not global) first matches `text`, as `U+XXXX at character N` (1-based, in code points). */
function describeFirst(text: string, pattern: RegExp): string {
  const match = pattern.exec(text);
  if (match === null) return 'none';
  const codePoint = text.codePointAt(match.index) ?? 0;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')} at character ${[...text.slice(0, match.index)].length + 1}`;
}

/**
 * Whether `text` holds an invisible formatting character: a bidirectional control, a line or paragraph
 * separator, a zero-width space, the byte order mark, or a tag character outside an emoji tag sequence
 * (see the list above `utf8TextSchema`). Control characters (C0, C1) are checked separately.
 *
 * @param text - The text.
 * @returns The first such character as `U+XXXX at character N`, or `undefined` when there is none.
 * @example
 * ```ts
 * import { findInvisibleFormatting } from '@tollgate/core/gateway';
 * findInvisibleFormatting('evil\u202eexe.txt'); // 'U+202E at character 5'
 * findInvisibleFormatting('Café 👩‍💻'); // undefined
 * ```
 */
export function findInvisibleFormatting(text: string): string | undefined {
  if (invisibleFormatting.test(text)) return describeFirst(text, invisibleFormatting);
  for (const match of text.matchAll(tagCharacterOrFlag)) {
    if (!match[0].startsWith('\u{1f3f4}')) return describeFirst(text.slice(0, match.index + match[0].length), /[\u{e0000}-\u{e007f}]$/u);
  }
  return undefined;
}

/**
 * Free text bounded in UTF-8 bytes (not characters: an emoji is 4 bytes), well-formed Unicode (no lone
 * surrogate), at least one character, without control characters (`multiline` allows tab, LF and CRLF)
 * and without invisible formatting characters ({@link findInvisibleFormatting}): merchant text is shown
 * to payers, and a right-to-left override or a zero-width space would let it read differently from what
 * it is.
 *
 * @param maxBytes - Largest UTF-8 size.
 * @param options - `multiline: true` for descriptions.
 * @returns The schema.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { utf8TextSchema } from '@tollgate/core/gateway';
 * v.parse(utf8TextSchema(120), 'Café order #12');
 * v.safeParse(utf8TextSchema(120), 'evil\u202eexe.txt').success; // false
 * ```
 */
export function utf8TextSchema(maxBytes: number, options: { multiline?: boolean } = {}) {
  const controls = options.multiline ? multiLineControls : singleLineControls;
  return v.pipe(
    v.string('a string'),
    v.minLength(1, 'a non-empty string'),
    v.check((value) => !loneSurrogate.test(value), 'well-formed Unicode text (no unpaired surrogate)'),
    v.check(
      (value) => !controls.test(value),
      (issue) =>
        `${options.multiline ? 'text without control characters other than tab, LF and CRLF' : 'text without control characters'} (found ${describeFirst(String(issue.input), controls)})`,
    ),
    v.check(
      (value) => findInvisibleFormatting(value) === undefined,
      (issue) => `text without invisible formatting characters such as direction overrides (found ${findInvisibleFormatting(String(issue.input)) ?? 'none'})`,
    ),
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
