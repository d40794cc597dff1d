import { keyedHash, keyedHashLabels } from '../../../crypto/keyed-hash';
import { randomBytes, type RandomSource } from '../../../crypto/random';

/**
 * Crockford's base32 alphabet: digits and upper-case letters without I, L, O and U, so a key read aloud
 * or retyped from paper has no look-alike characters.
 */
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Shape of a license key: 6 groups of 5 Crockford base32 characters (150 random bits). */
export const licenseKeyFormat = { groups: 6, groupLength: 5, randomBits: 150 } as const;

const keyCharacters = licenseKeyFormat.groups * licenseKeyFormat.groupLength;

/**
 * A fresh license key, `XXXXX-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX`: 30 Crockford base32 characters (150
 * bits from the CSPRNG) in six groups. 150 bits keep keys unguessable even by an attacker who could try
 * keys at line rate for years, and well clear of birthday collisions across every key ever issued.
 *
 * @param random - Where the bytes come from (the platform CSPRNG unless a test injects one).
 * @returns The key, shown to the operator exactly once.
 * @example
 * ```ts
 * import { generateLicenseKey } from '@tollgate/core/license';
 * const key = generateLicenseKey(); // e.g. '7K2QD-M9XBA-0RT4V-…'
 * ```
 */
export function generateLicenseKey(random: RandomSource = randomBytes): string {
  // 19 bytes = 152 bits; the first 150 become 30 characters of 5 bits each.
  const bytes = random(19);
  if (!(bytes instanceof Uint8Array) || bytes.length !== 19) throw new TypeError('The random source returned something other than 19 bytes.');
  let characters = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && characters.length < keyCharacters) {
      bits -= 5;
      characters += alphabet[(buffer >> bits) & 31];
    }
  }
  bytes.fill(0);
  const groups: string[] = [];
  for (let start = 0; start < keyCharacters; start += licenseKeyFormat.groupLength) groups.push(characters.slice(start, start + licenseKeyFormat.groupLength));
  return groups.join('-');
}

/**
 * The canonical form of a license key as a person typed it: upper case, without hyphens or spaces, with
 * the look-alikes Crockford allows mapped (`O` → `0`, `I`/`L` → `1`). Keys are hashed in this form, so a
 * key typed in lower case or without hyphens still matches.
 *
 * @param typed - The key as received.
 * @returns The 30 canonical characters, or `undefined` when it cannot be a license key.
 * @example
 * ```ts
 * import { normalizeLicenseKey } from '@tollgate/core/license';
 * normalizeLicenseKey(' 7k2qd-m9xba-0rt4v-…'); // '7K2QDM9XBA0RT4V…'
 * ```
 */
export function normalizeLicenseKey(typed: string): string | undefined {
  if (typeof typed !== 'string' || typed.length > 64) return undefined;
  const canonical = typed
    .replace(/[\s-]/g, '')
    .toUpperCase()
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (canonical.length !== keyCharacters) return undefined;
  for (const character of canonical) if (!alphabet.includes(character)) return undefined;
  return canonical;
}

/**
 * The stored form of a license key: `keyedHash(licenseKeyHash, canonical key, 'license-key')`. Issuance
 * stores it; activation looks the key up by it.
 *
 * @param hashKey - `deriveLicenseAdminKeys(masterKey).licenseKeyHash`.
 * @param key - The key, in any form {@link normalizeLicenseKey} accepts.
 * @returns 64 hex digits, or `undefined` for something that cannot be a key.
 * @example
 * ```ts
 * import { deriveLicenseAdminKeys, hashLicenseKey } from '@tollgate/core/license';
 * const keyHash = hashLicenseKey(deriveLicenseAdminKeys(masterKey).licenseKeyHash, typedKey);
 * ```
 */
export function hashLicenseKey(hashKey: Uint8Array, key: string): string | undefined {
  const canonical = normalizeLicenseKey(key);
  return canonical === undefined ? undefined : keyedHash(hashKey, canonical, keyedHashLabels.licenseKey);
}

/**
 * The hint operators see for a key: its last four characters (20 of its 150 bits, too few to help a
 * guesser, enough to tell two keys of a customer apart).
 *
 * @param key - The key, in any form {@link normalizeLicenseKey} accepts.
 * @returns The four characters.
 * @throws TypeError for something that is not a license key.
 * @example
 * ```ts
 * import { licenseKeyHint } from '@tollgate/core/license';
 * licenseKeyHint(key); // e.g. 'Q4VZ'
 * ```
 */
export function licenseKeyHint(key: string): string {
  const canonical = normalizeLicenseKey(key);
  if (canonical === undefined) throw new TypeError('Not a license key.');
  return canonical.slice(-4);
}
