import { describe, expect, it } from 'vitest';
import { hexEncode } from '../../../crypto/hex';
import { sha256 } from '../../../crypto/hash';
import { utf8Encode } from '../../../crypto/utf8';
import {
  auditChainLink,
  auditEventHash,
  auditGenesisHash,
  auditSummaryJson,
  isSecretSummaryKey,
  redactAuditSummary,
  verifyAuditChain,
  type AuditChainLink,
} from './audit-chain';

const vendorId = 'ab'.repeat(16);

function chainOf(count: number): AuditChainLink[] {
  const links: AuditChainLink[] = [];
  let prevHash = auditGenesisHash;
  for (let seq = 1; seq <= count; seq += 1) {
    const fields = { vendorId, seq, actor: 'cd'.repeat(16), action: 'license.revoke', targetType: 'license', targetId: `lic-${seq}`, summaryJson: `{"n":${seq}}`, at: 1_767_225_600_000 + seq, prevHash };
    const link = { ...fields, hash: auditEventHash(fields) };
    links.push(link);
    prevHash = link.hash;
  }
  return links;
}

const whole = (links: AuditChainLink[]) => ({ fromSeq: 1, prevHash: auditGenesisHash, head: { seq: links.length, hash: links.at(-1)?.hash ?? auditGenesisHash }, limit: 10_000 });

describe('isSecretSummaryKey', () => {
  it('flags secret-like names in every spelling', () => {
    for (const name of ['password', 'newPassword', 'secret', 'client_secret', 'token', 'refreshToken', 'access-token', 'key', 'license_key', 'licenseKey', 'LICENSE_KEY', 'private', 'private_key', 'privateKey', 'apiKey', 'apikey', 'seed', 'kek', 'passphrase', 'credentials']) {
      expect(isSecretSummaryKey(name), name).toBe(true);
    }
  });

  it('leaves identifiers, counts and ordinary names alone', () => {
    for (const name of ['token_id', 'tokenId', 'key_fingerprint', 'keys_count', 'name', 'product_id', 'monkey', 'keyboard', 'expires_at', 'scopes', '']) {
      expect(isSecretSummaryKey(name), name).toBe(false);
    }
  });
});

describe('redactAuditSummary', () => {
  it('replaces strings under secret keys at any depth and keeps booleans, numbers and null', () => {
    const input = {
      email: 'a@b.example',
      password: 'hunter2',
      account: { name: 'Acme', api_token: 'tok_123', nested: [{ secret: 'x' }] },
      license_key: { value: 'K-1', valid: true, uses: 3, revoked: null, parts: ['a', 'b', 7] },
      private: false,
      token_id: '0123',
      keys: ['k1', 'k2'],
    };
    expect(redactAuditSummary(input)).toEqual({
      email: 'a@b.example',
      password: '[redacted]',
      account: { name: 'Acme', api_token: '[redacted]', nested: [{ secret: '[redacted]' }] },
      license_key: { value: '[redacted]', valid: true, uses: 3, revoked: null, parts: ['[redacted]', '[redacted]', 7] },
      private: false,
      token_id: '0123',
      keys: ['[redacted]', '[redacted]'],
    });
    expect(input.password).toBe('hunter2');
    expect(input.license_key.value).toBe('K-1');
  });

  it('drops undefined properties as JSON does, and keeps a __proto__ key as plain data', () => {
    const parsed = JSON.parse('{"__proto__":{"token":"t"},"a":1}') as Record<string, unknown>;
    const redacted = redactAuditSummary({ ...parsed, gone: undefined });
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(['__proto__', 'a']);
    expect(auditSummaryJson(redacted)).toBe('{"__proto__":{"token":"[redacted]"},"a":1}');
  });

  it('refuses anything that is not plain JSON', () => {
    for (const bad of [{ at: new Date(0) }, { n: 1n }, { n: Number.NaN }, { n: Infinity }, { m: new Map() }, { b: new Uint8Array(1) }, { list: [undefined] }, { f: () => 1 }]) {
      expect(() => redactAuditSummary(bad as Record<string, unknown>)).toThrow(TypeError);
    }
    expect(() => redactAuditSummary([] as unknown as Record<string, unknown>)).toThrow(TypeError);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 40; level += 1) deep = { deep };
    expect(() => redactAuditSummary(deep)).toThrow(/nests at most/);
  });
});

describe('auditSummaryJson', () => {
  it('is RFC 8785 canonical and stable through a parse', () => {
    const text = auditSummaryJson({ b: [1e21, 0.1, -0], a: 'é\u0000"', c: { z: null, y: true } });
    expect(text).toBe('{"a":"é\\u0000\\"","b":[1e+21,0.1,0],"c":{"y":true,"z":null}}');
    expect(auditSummaryJson(JSON.parse(text) as Record<string, unknown>)).toBe(text);
  });
});

describe('auditEventHash', () => {
  it('is SHA-256 over the domain and the fields, each with a 4-byte big-endian length', () => {
    const fields = { vendorId, seq: 7, actor: 'cli:bootstrap', action: 'vendor.create', targetType: 'vendor', targetId: 'v', summaryJson: '{}', at: 12, prevHash: auditGenesisHash };
    const parts = ['tollgate/license/v1/audit-event', vendorId, '7', 'cli:bootstrap', 'vendor.create', 'vendor', 'v', '{}', '12', auditGenesisHash];
    const bytes = parts.flatMap((part) => {
      const encoded = [...utf8Encode(part)];
      return [0, 0, encoded.length >> 8, encoded.length & 0xff, ...encoded];
    });
    expect(auditEventHash(fields)).toBe(hexEncode(sha256(Uint8Array.from(bytes))));
  });

  it('tells apart events whose concatenated fields are equal', () => {
    const base = { vendorId, seq: 1, actor: 'ab', action: 'c', targetType: 't', targetId: 'i', summaryJson: '{}', at: 1, prevHash: auditGenesisHash };
    expect(auditEventHash(base)).not.toBe(auditEventHash({ ...base, actor: 'a', action: 'bc' }));
    expect(auditEventHash(base)).not.toBe(auditEventHash({ ...base, seq: 11, at: 1 }));
  });

  it('hashes a listed event exactly as its stored link', () => {
    const [link] = chainOf(1) as [AuditChainLink];
    const { summaryJson: _json, ...event } = link;
    expect(auditChainLink({ ...event, summary: { n: 1 } }).summaryJson).toBe(link.summaryJson);
    expect(auditEventHash(auditChainLink({ ...event, summary: { n: 1 } }))).toBe(link.hash);
  });
});

describe('verifyAuditChain', () => {
  it('verifies an intact chain and reports its length and head', () => {
    const links = chainOf(5);
    expect(verifyAuditChain(links, whole(links))).toEqual({ verified: true, event_count: 5, head: links[4]?.hash, first_broken: null });
    expect(verifyAuditChain([], { fromSeq: 1, prevHash: auditGenesisHash, head: null, limit: 10 })).toEqual({ verified: true, event_count: 0, head: null, first_broken: null });
  });

  it('reports a changed field, link or hash at the changed event', () => {
    const changes: ((link: AuditChainLink) => AuditChainLink)[] = [
      (link) => ({ ...link, actor: 'someone-else' }),
      (link) => ({ ...link, action: 'license.create' }),
      (link) => ({ ...link, targetType: 'machine' }),
      (link) => ({ ...link, targetId: 'other' }),
      (link) => ({ ...link, summaryJson: '{"n":99}' }),
      (link) => ({ ...link, at: link.at + 1 }),
      (link) => ({ ...link, at: link.at + 0.5 }),
      (link) => ({ ...link, vendorId: 'cd'.repeat(16) }),
      (link) => ({ ...link, prevHash: 'f'.repeat(64) }),
      (link) => ({ ...link, hash: 'f'.repeat(64) }),
    ];
    for (const change of changes) {
      for (const index of [0, 2, 4]) {
        const links = chainOf(5);
        const head = whole(links);
        links[index] = change(links[index] as AuditChainLink);
        expect(verifyAuditChain(links, head)).toMatchObject({ verified: false, first_broken: index + 1, event_count: 5 });
      }
    }
  });

  it('reports a missing, renumbered or surplus event, and a head the chain does not reach', () => {
    const links = chainOf(5);
    const range = whole(links);
    expect(verifyAuditChain(links.filter((link) => link.seq !== 3), range).first_broken).toBe(3);
    expect(verifyAuditChain(links.slice(0, 4), range).first_broken).toBe(5);
    expect(verifyAuditChain(links.map((link) => (link.seq === 3 ? { ...link, seq: 33 } : link)).sort((a, b) => a.seq - b.seq), range).first_broken).toBe(3);
    expect(verifyAuditChain(chainOf(6), range).first_broken).toBe(6);
    expect(verifyAuditChain(links, { ...range, head: { seq: 5, hash: 'e'.repeat(64) } }).first_broken).toBe(5);
    expect(verifyAuditChain(links, { ...range, head: null }).first_broken).toBe(1);
  });

  it('checks a window from fromSeq against its predecessor, up to the limit', () => {
    const links = chainOf(8);
    const head = { seq: 8, hash: links[7]?.hash as string };
    const window = links.slice(3, 6);
    expect(verifyAuditChain(window, { fromSeq: 4, prevHash: links[2]?.hash as string, head, limit: 3 })).toEqual({ verified: true, event_count: 3, head: links[5]?.hash, first_broken: null });
    expect(verifyAuditChain(window, { fromSeq: 4, prevHash: 'a'.repeat(64), head, limit: 3 }).first_broken).toBe(4);
    expect(verifyAuditChain(window, { fromSeq: 4, prevHash: null, head, limit: 3 }).first_broken).toBe(4);
    expect(verifyAuditChain([], { fromSeq: 20, prevHash: null, head, limit: 3 })).toMatchObject({ verified: true, event_count: 0 });
  });
});
