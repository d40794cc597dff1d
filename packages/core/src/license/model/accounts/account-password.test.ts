import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../../../crypto/base64';
import { accountPasswordCost, accountPasswordProblem, hashAccountPassword, normalizeAccountPassword, verifyAccountPassword, type ScryptParameters } from './account-password';

// A cheap cost for the cases that only exercise parsing and comparison; one case runs the real cost.
const cheap: ScryptParameters = { N: 2 ** 10, r: 8, p: 1 };
const storedShape = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

describe('hashAccountPassword / verifyAccountPassword', () => {
  it('stores the default cost, a 16-byte salt and a 32-byte hash, and verifies only the right password', async () => {
    const stored = await hashAccountPassword('correct horse battery staple');
    const match = storedShape.exec(stored);
    expect(match?.slice(1, 4)).toEqual([String(accountPasswordCost.N), String(accountPasswordCost.r), String(accountPasswordCost.p)]);
    expect(stored).not.toContain('correct horse');
    expect(await verifyAccountPassword(stored, 'correct horse battery staple')).toBe(true);
    expect(await verifyAccountPassword(stored, 'correct horse battery stapl')).toBe(false);
    expect(await verifyAccountPassword(stored, 'Correct horse battery staple')).toBe(false);
  });

  it('is standard scrypt over the NFKC UTF-8 password (checked against node:crypto)', async () => {
    const salt = Uint8Array.from({ length: 16 }, (_, index) => index);
    const stored = await hashAccountPassword('pässwörd-ﬁ', { cost: cheap, random: () => salt.slice() });
    const expected = scryptSync(Buffer.from('pässwörd-fi'.normalize('NFKC'), 'utf8'), salt, 32, { N: cheap.N, r: cheap.r, p: cheap.p });
    expect(stored).toBe(`scrypt$1024$8$1$${base64UrlEncode(salt)}$${base64UrlEncode(new Uint8Array(expected))}`);
  });

  it('salts every hash afresh', async () => {
    const [first, second] = await Promise.all([hashAccountPassword('same password', { cost: cheap }), hashAccountPassword('same password', { cost: cheap })]);
    expect(first).not.toBe(second);
    expect(await verifyAccountPassword(first, 'same password')).toBe(true);
    expect(await verifyAccountPassword(second, 'same password')).toBe(true);
  });

  it('verifies composed and decomposed spellings of one password alike', async () => {
    const stored = await hashAccountPassword('caf\u00e9-latte', { cost: cheap });
    expect(await verifyAccountPassword(stored, 'cafe\u0301-latte')).toBe(true);
    expect(normalizeAccountPassword('cafe\u0301')).toBe('caf\u00e9');
  });

  it('reads the cost from the stored string, so hashes made with another cost still verify', async () => {
    const stored = await hashAccountPassword('an older password', { cost: { N: 2 ** 11, r: 4, p: 2 } });
    expect(stored.startsWith('scrypt$2048$4$2$')).toBe(true);
    expect(await verifyAccountPassword(stored, 'an older password')).toBe(true);
  });

  it('never verifies a stored value it did not write, or one with out-of-range parameters', async () => {
    const stored = await hashAccountPassword('password123', { cost: cheap });
    const [, , , , salt, hash] = stored.split('$');
    const variants = [
      '',
      'password123',
      stored.replace('scrypt$', 'bcrypt$'),
      stored.slice(0, -1),
      `${stored}A`,
      `scrypt$1000$8$1$${salt}$${hash}`, // N not a power of two
      `scrypt$${2 ** 21}$8$1$${salt}$${hash}`, // N too large to be ours
      `scrypt$1024$64$1$${salt}$${hash}`, // r too large
      `scrypt$1024$8$17$${salt}$${hash}`, // p too large
      `scrypt$1024$8$1$${salt}$${(hash as string).slice(0, -1)}B`, // non-canonical base64url
    ];
    for (const variant of variants) expect(await verifyAccountPassword(variant, 'password123'), variant).toBe(false);
    expect(await verifyAccountPassword(stored, 'password123')).toBe(true);
    expect(await verifyAccountPassword(stored, undefined as unknown as string)).toBe(false);
  });
});

describe('accountPasswordProblem', () => {
  it('accepts 8 to 1024 characters of any kind, counted after NFKC', () => {
    expect(accountPasswordProblem('12345678')).toBeUndefined();
    expect(accountPasswordProblem('        ')).toBeUndefined();
    expect(accountPasswordProblem('🔑'.repeat(8))).toBeUndefined(); // 8 characters, 16 UTF-16 units
    expect(accountPasswordProblem('x'.repeat(1024))).toBeUndefined();
    expect(accountPasswordProblem('1234567')).toBe('must be 8 to 1024 characters');
    expect(accountPasswordProblem('🔑'.repeat(7))).toBe('must be 8 to 1024 characters');
    expect(accountPasswordProblem('x'.repeat(1025))).toBe('must be 8 to 1024 characters');
    expect(accountPasswordProblem('ﬁ'.repeat(4))).toBeUndefined(); // NFKC turns each ligature into two letters
  });

  it('refuses unpaired surrogates, which are not text', () => {
    expect(accountPasswordProblem('abcdefgh\ud800')).toBe('must be valid Unicode text');
  });
});
