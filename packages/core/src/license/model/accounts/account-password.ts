import { scryptAsync } from '@noble/hashes/scrypt.js';
import { base64Decode, base64UrlEncode } from '../../../crypto/base64';
import { constantTimeEqual } from '../../../crypto/constant-time';
import { randomBytes, type RandomSource } from '../../../crypto/random';
import { utf8Encode } from '../../../crypto/utf8';

/** scrypt cost parameters: `N` (a power of two), block size `r`, parallelism `p`. */
export interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * The cost of new account password hashes: OWASP's scrypt row of 32 MiB memory (`N = 2^15`, `r = 8`)
 * with `p = 3`, as strong as its `N = 2^17, p = 1` row at a quarter of the memory. With noble's
 * JavaScript scrypt that is about half a second of CPU per hash, spent in slices of at most 10 ms, so
 * the server keeps answering meanwhile. Stored hashes carry their own parameters: raising these later
 * leaves existing accounts verifiable.
 */
export const accountPasswordCost: ScryptParameters = Object.freeze({ N: 2 ** 15, r: 8, p: 3 });

/** Account password length bounds in Unicode characters, after NFKC normalisation. */
export const accountPasswordLength = { min: 8, max: 1024 } as const;

const saltBytes = 16;
const hashBytes = 32;
// Bounds on parameters read back from storage, so a corrupted row cannot make verification allocate
// gigabytes or spin for minutes.
const maxLogN = 20;
const maxR = 32;
const maxP = 16;
const storedPattern = /^scrypt\$([1-9][0-9]{0,7})\$([1-9][0-9]?)\$([1-9][0-9]?)\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

/**
 * The form a password is hashed in: Unicode NFKC, so the same password typed on systems that compose
 * characters differently (é as one code point or e + ◌́) verifies alike (NIST SP 800-63B §5.1.1.2).
 *
 * @param password - The password as received.
 * @returns Its normalised form.
 * @example
 * ```ts
 * import { normalizeAccountPassword } from '@tollgate/core/license';
 * normalizeAccountPassword('cafe\u0301') === normalizeAccountPassword('caf\u00e9'); // true
 * ```
 */
export function normalizeAccountPassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * Why a password is refused, or `undefined` when it is acceptable: 8 to 1024 Unicode characters after
 * NFKC normalisation, any characters (spaces and symbols included) except unpaired UTF-16 surrogates,
 * which are not text. The reason never quotes the password.
 *
 * @param password - The candidate password.
 * @returns A message for the operator, or `undefined`.
 * @example
 * ```ts
 * import { accountPasswordProblem } from '@tollgate/core/license';
 * accountPasswordProblem('short'); // 'must be 8 to 1024 characters'
 * ```
 */
export function accountPasswordProblem(password: string): string | undefined {
  if (/\p{Surrogate}/u.test(password)) return 'must be valid Unicode text';
  const length = [...normalizeAccountPassword(password)].length;
  if (length < accountPasswordLength.min || length > accountPasswordLength.max) return `must be ${accountPasswordLength.min} to ${accountPasswordLength.max} characters`;
  return undefined;
}

function derive(password: string, salt: Uint8Array, cost: ScryptParameters): Promise<Uint8Array> {
  return scryptAsync(utf8Encode(normalizeAccountPassword(password)), salt, { ...cost, dkLen: hashBytes });
}

/**
 * Hashes an account password with scrypt and a fresh 128-bit salt into a self-describing string
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` (salt and hash in unpadded base64url). Slow on purpose: call it
 * before opening a transaction, so no row lock waits for the KDF.
 *
 * @param password - The password (check it with {@link accountPasswordProblem} first).
 * @param options - The cost (default {@link accountPasswordCost}) and the salt's randomness source.
 * @returns The string to store.
 * @example
 * ```ts
 * import { hashAccountPassword } from '@tollgate/core/license';
 * const passwordHash = await hashAccountPassword('correct horse battery staple');
 * ```
 */
export async function hashAccountPassword(password: string, options: { cost?: ScryptParameters; random?: RandomSource } = {}): Promise<string> {
  const cost = options.cost ?? accountPasswordCost;
  const salt = (options.random ?? randomBytes)(saltBytes);
  const hash = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${base64UrlEncode(salt)}$${base64UrlEncode(hash)}`;
}

function parseStored(stored: string): { cost: ScryptParameters; salt: Uint8Array; hash: Uint8Array } | undefined {
  const match = storedPattern.exec(stored);
  if (match === null) return undefined;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const logN = Math.log2(N);
  if (!Number.isInteger(logN) || logN < 1 || logN > maxLogN || r > maxR || p > maxP) return undefined;
  try {
    return { cost: { N, r, p }, salt: base64Decode(match[4] as string), hash: base64Decode(match[5] as string) };
  } catch {
    return undefined; // non-canonical base64url: not a string this module wrote
  }
}

/**
 * Checks a password against a stored {@link hashAccountPassword} string, comparing the derived hash in
 * constant time. A stored value that is not such a string (or has out-of-range parameters) never
 * verifies.
 *
 * @param stored - The stored hash string.
 * @param password - The password the user typed.
 * @returns Whether it matches.
 * @example
 * ```ts
 * import { verifyAccountPassword } from '@tollgate/core/license';
 * if (!(await verifyAccountPassword(account.passwordHash, typed))) refuse();
 * ```
 */
export async function verifyAccountPassword(stored: string, password: string): Promise<boolean> {
  if (typeof stored !== 'string' || typeof password !== 'string') return false;
  const parsed = parseStored(stored);
  if (parsed === undefined) return false;
  return constantTimeEqual(await derive(password, parsed.salt, parsed.cost), parsed.hash);
}
