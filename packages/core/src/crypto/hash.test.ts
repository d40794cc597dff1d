import { describe, expect, it } from 'vitest';
import { CryptoError, hexDecode, hexEncode, hmacSha256, sha256, utf8Encode } from './index';

const text = (value: string): Uint8Array => utf8Encode(value);
const repeated = (byte: number, length: number): Uint8Array => new Uint8Array(length).fill(byte);

describe('sha256', () => {
  it('matches the FIPS 180-4 known answers', () => {
    expect(hexEncode(sha256(new Uint8Array(0)))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hexEncode(sha256(text('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hexEncode(sha256(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('refuses strings: text must be encoded explicitly', () => {
    expect(() => sha256('abc' as unknown as Uint8Array)).toThrow(CryptoError);
  });
});

describe('hmacSha256 (RFC 4231 test cases 1-7)', () => {
  const cases: Array<{ name: string; key: Uint8Array; data: Uint8Array; mac: string }> = [
    {
      name: '1: short key and data',
      key: repeated(0x0b, 20),
      data: text('Hi There'),
      mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    },
    {
      name: '2: key shorter than the output',
      key: text('Jefe'),
      data: text('what do ya want for nothing?'),
      mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    },
    {
      name: '3: combined length of key and data larger than 64 bytes',
      key: repeated(0xaa, 20),
      data: repeated(0xdd, 50),
      mac: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
    },
    {
      name: '4: 25-byte counting key',
      key: hexDecode('0102030405060708090a0b0c0d0e0f10111213141516171819'),
      data: repeated(0xcd, 50),
      mac: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
    },
    {
      name: '6: key larger than the block size',
      key: repeated(0xaa, 131),
      data: text('Test Using Larger Than Block-Size Key - Hash Key First'),
      mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    },
    {
      name: '7: key and data larger than the block size',
      key: repeated(0xaa, 131),
      data: text(
        'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
      ),
      mac: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    },
  ];

  for (const { name, key, data, mac } of cases) {
    it(`case ${name}`, () => {
      expect(hexEncode(hmacSha256(key, data))).toBe(mac);
    });
  }

  it('case 5: truncation to 128 bits (compare the prefix)', () => {
    const mac = hmacSha256(repeated(0x0c, 20), text('Test With Truncation'));
    expect(mac).toHaveLength(32);
    expect(hexEncode(mac.subarray(0, 16))).toBe('a3b6167473100ee06e0c796c2955552b');
  });

  it('refuses a key or message that is not bytes', () => {
    expect(() => hmacSha256('key' as unknown as Uint8Array, new Uint8Array(1))).toThrow(CryptoError);
    expect(() => hmacSha256(new Uint8Array(32), 'data' as unknown as Uint8Array)).toThrow(CryptoError);
  });
});
