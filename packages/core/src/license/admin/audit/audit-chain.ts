import canonicalize from 'canonicalize';
import { hexEncode } from '../../../crypto/hex';
import { sha256 } from '../../../crypto/hash';
import { utf8Encode } from '../../../crypto/utf8';
import type { AuditEvent, AuditVerification } from './audit-log';

/** What a redacted value reads as. */
export const auditRedactedValue = '[redacted]';

/** The `prevHash` of seq 1: 32 zero bytes as hex. */
export const auditGenesisHash = '0'.repeat(64);

/** The first field of every hashed event, so an event hash can never collide with another structure's. */
export const auditEventHashDomain = 'tollgate/license/v1/audit-event';

// Whole words (after splitting snake_case, kebab-case and camelCase) that name a secret…
const secretWords = new Set(['key', 'keys', 'kek', 'keks', 'private', 'seed', 'seeds', 'pwd', 'otp']);
// …and stems that name one wherever they appear in a word (`apitoken`, `clientsecret`).
const secretStems = ['password', 'passwd', 'passphrase', 'secret', 'token', 'credential', 'apikey', 'privatekey'];
// A name whose last word says it is an identifier or a count of a secret is not itself a secret.
const identifierSuffixes = new Set(['id', 'ids', 'fingerprint', 'fingerprints', 'count']);
const maxSummaryDepth = 32;

/**
 * Whether a summary key names a secret: split into words (`license_key`, `licenseKey`, `license-key` →
 * `license`, `key`), it is secret when a word is `key`, `keys`, `kek`, `private`, `seed`, `pwd` or `otp`,
 * or contains `password`, `passwd`, `passphrase`, `secret`, `token`, `credential`, `apikey` or
 * `privatekey`, unless its last word marks an identifier or a count (`token_id`, `key_fingerprint`,
 * `keys_count`). False positives only hide a value; false negatives would leak one, so the rule is wide.
 *
 * @param name - A summary key.
 * @returns True when values under it are redacted.
 * @example
 * ```ts
 * import { isSecretSummaryKey } from '@tollgate/core/license';
 * isSecretSummaryKey('licenseKey'); // true
 * isSecretSummaryKey('token_id'); // false
 * ```
 */
export function isSecretSummaryKey(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  if (words.length === 0 || identifierSuffixes.has(words[words.length - 1] as string)) return false;
  return words.some((word) => secretWords.has(word) || secretStems.some((stem) => word.includes(stem)));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function redactValue(value: unknown, secret: boolean, path: string, depth: number): unknown {
  if (depth > maxSummaryDepth) throw new TypeError(`An audit summary nests at most ${maxSummaryDepth} levels (${path}).`);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`An audit summary holds finite numbers only (${path}).`);
    return value;
  }
  if (typeof value === 'string') return secret ? auditRedactedValue : value;
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      if (item === undefined) throw new TypeError(`An audit summary array holds no undefined (${path}[${index}]).`);
      return redactValue(item, secret, `${path}[${index}]`, depth + 1);
    });
  }
  if (typeof value === 'object' && isPlainObject(value)) {
    // fromEntries defines own properties, so a `__proto__` key stays data and never becomes a prototype.
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, redactValue(item, secret || isSecretSummaryKey(key), `${path}.${key}`, depth + 1)]),
    );
  }
  throw new TypeError(`An audit summary holds JSON values only: ${path} is ${typeof value === 'object' ? 'a non-plain object' : `a ${typeof value}`}.`);
}

/**
 * Redacts an audit summary before it is hashed and stored: every string anywhere under a secret-like key
 * (see {@link isSecretSummaryKey}), at any depth, becomes `"[redacted]"`; booleans, numbers and `null`
 * are kept (they carry no secret, and an auditor still sees e.g. `{ password: { changed: true } }`),
 * and so are object keys and array lengths. Properties whose value is `undefined` are dropped, as JSON
 * does.
 *
 * @param summary - A plain JSON object.
 * @returns A new, redacted object (the input is not changed).
 * @throws TypeError for anything that is not plain JSON (Date, bigint, Map, non-finite numbers…) or a
 *   nesting deeper than 32 levels: the caller passes the wrong thing.
 * @example
 * ```ts
 * import { redactAuditSummary } from '@tollgate/core/license';
 * redactAuditSummary({ email: 'a@b.example', password: 'hunter2', license_key: { value: 'K-1', valid: true } });
 * // { email: 'a@b.example', password: '[redacted]', license_key: { value: '[redacted]', valid: true } }
 * ```
 */
export function redactAuditSummary(summary: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) throw new TypeError('An audit summary is a JSON object.');
  return redactValue(summary, false, 'summary', 0) as Record<string, unknown>;
}

/**
 * The canonical JSON text (RFC 8785 JSON Canonicalization Scheme: sorted keys, no whitespace,
 * ECMAScript number spelling) of a summary: what is hashed and stored. Parsing it and canonicalizing
 * again gives the same text, so a listed event can be re-hashed by anyone.
 *
 * @param summary - An already redacted summary.
 * @returns The canonical text.
 * @example
 * ```ts
 * import { auditSummaryJson } from '@tollgate/core/license';
 * auditSummaryJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function auditSummaryJson(summary: Readonly<Record<string, unknown>>): string {
  const text = canonicalize(summary);
  if (text === undefined) throw new TypeError('An audit summary is a JSON object.');
  return text;
}

/** One event as the chain hashes it: the summary as its stored canonical JSON text. */
export interface AuditChainLink {
  readonly vendorId: string;
  readonly seq: number;
  readonly actor: string;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string;
  /** The canonical JSON text of the redacted summary. */
  readonly summaryJson: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** 64 lower-case hex digits. */
  readonly prevHash: string;
  /** 64 lower-case hex digits. */
  readonly hash: string;
}

/**
 * The link of a listed event, for re-hashing it outside the database.
 *
 * @param event - An event as `AuditLog.list` returns it.
 * @returns The link.
 * @example
 * ```ts
 * import { auditChainLink, auditEventHash } from '@tollgate/core/license';
 * const intact = auditEventHash(auditChainLink(event)) === event.hash;
 * ```
 */
export function auditChainLink(event: AuditEvent): AuditChainLink {
  const { summary, ...fields } = event;
  return { ...fields, summaryJson: auditSummaryJson(summary) };
}

/**
 * The hash of one event: lower-case hex SHA-256 over, in this order, {@link auditEventHashDomain},
 * vendor id, seq (decimal), actor, action, target type, target id, summary (canonical JSON), at
 * (decimal milliseconds) and prev hash (hex), each written as its UTF-8 length in 4 bytes big-endian
 * followed by its UTF-8 bytes. The length prefixes make the encoding injective: no two different
 * events share an input, whatever their fields contain.
 *
 * @param link - The event's fields (its own `hash` is ignored).
 * @returns 64 lower-case hex digits.
 * @example
 * ```ts
 * import { auditEventHash, auditGenesisHash } from '@tollgate/core/license';
 * const hash = auditEventHash({ vendorId, seq: 1, actor: 'cli:bootstrap', action: 'vendor.create', targetType: 'vendor', targetId: vendorId, summaryJson: '{}', at: Date.now(), prevHash: auditGenesisHash });
 * ```
 */
export function auditEventHash(link: Omit<AuditChainLink, 'hash'>): string {
  const fields = [auditEventHashDomain, link.vendorId, String(link.seq), link.actor, link.action, link.targetType, link.targetId, link.summaryJson, String(link.at), link.prevHash].map(utf8Encode);
  const input = new Uint8Array(fields.reduce((total, field) => total + 4 + field.length, 0));
  const view = new DataView(input.buffer);
  let offset = 0;
  for (const field of fields) {
    view.setUint32(offset, field.length, false);
    input.set(field, offset + 4);
    offset += 4 + field.length;
  }
  return hexEncode(sha256(input));
}

/** Where a checked stretch of a chain starts and where it must end. */
export interface AuditChainRange {
  /** The seq the first link must have. */
  readonly fromSeq: number;
  /**
   * The hash the first link must point to: {@link auditGenesisHash} for seq 1, otherwise the stored hash
   * of `fromSeq − 1`, or `null` when that event is missing (the first link then cannot be intact).
   */
  readonly prevHash: string | null;
  /** The head the chain claims (seq and hash of its last event), or `null` when it has none. */
  readonly head: { readonly seq: number; readonly hash: string } | null;
  /** Most events checked: the stretch ends at `min(head.seq, fromSeq + limit − 1)`. */
  readonly limit: number;
}

/**
 * Checks a stretch of a chain, links in ascending seq order. Position `p` (from `fromSeq` to the
 * expected end `min(head.seq, fromSeq + limit − 1)`) is intact when the link read there has seq `p`,
 * its `prevHash` equals the hash of the link before it (`range.prevHash` for the first), and its hash
 * recomputes ({@link auditEventHash}). `first_broken` is the first position that is not intact:
 *
 * - a changed actor, action, target, summary, time, prev hash or hash of event `p` → `p` (the hash no
 *   longer recomputes, or the link no longer matches; a changed hash is reported at its own event, not
 *   at the next one whose link it breaks);
 * - event `p` missing, or its seq changed (the link read at `p` then has another seq) → `p`;
 * - a stretch that ends early → the first missing position; links beyond the head → `head.seq + 1`;
 * - every link intact, but the last one is not the head's hash → `head.seq`.
 *
 * `event_count` is the number of links given and `head` the stored hash of the last of them.
 *
 * @param links - The stored links from `fromSeq` on, ascending, at most `limit`.
 * @param range - Start, expected predecessor, claimed head and limit.
 * @returns The verification.
 * @example
 * ```ts
 * import { auditChainLink, auditGenesisHash, verifyAuditChain } from '@tollgate/core/license';
 * const result = verifyAuditChain(events.map(auditChainLink), { fromSeq: 1, prevHash: auditGenesisHash, head: { seq: 5, hash: anchoredHead }, limit: 5 });
 * ```
 */
export function verifyAuditChain(links: readonly AuditChainLink[], range: AuditChainRange): AuditVerification {
  const lastExpected = range.head === null ? range.fromSeq - 1 : Math.min(range.head.seq, range.fromSeq + range.limit - 1);
  let previous = range.prevHash;
  let firstBroken: number | null = null;
  for (const [index, link] of links.entries()) {
    const position = range.fromSeq + index;
    const intact = position <= lastExpected && link.seq === position && previous !== null && link.prevHash === previous && auditEventHash(link) === link.hash;
    if (!intact) {
      firstBroken = position;
      break;
    }
    previous = link.hash;
  }
  if (firstBroken === null) {
    const expectedCount = Math.max(0, lastExpected - range.fromSeq + 1);
    if (links.length < expectedCount) firstBroken = range.fromSeq + links.length;
    else if (range.head !== null && expectedCount > 0 && lastExpected === range.head.seq && previous !== range.head.hash) firstBroken = range.head.seq;
  }
  return { verified: firstBroken === null, event_count: links.length, head: links.at(-1)?.hash ?? null, first_broken: firstBroken };
}
