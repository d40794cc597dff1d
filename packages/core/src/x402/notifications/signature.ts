import { TollgateError } from '../../errors/base';
import { constantTimeEqual } from '../../crypto/constant-time';
import { hmacSha256 } from '../../crypto/hash';
import { hexDecode, hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';

/**
 * The header names of merchant notification signatures (Stripe-like, with key rollover).
 *
 * **Headers** (names are case-insensitive):
 * - `Tollgate-Timestamp: <unix seconds>`
 * - `Tollgate-Signature: t=<unix seconds>,<keyId>=<hex>[,<keyId2>=<hex>…]`: one HMAC per live notify
 *   key, so a merchant can roll keys without missing a notification.
 *
 * **Signature:** `hex(HMAC-SHA256(key, "<t>.<raw body>"))`, lowercase, where `key` is the UTF-8 bytes
 * of the `notifyHmacKey` string exactly as issued at registration (`notifyHmacKeyId` is its `keyId`),
 * and the raw body is the request body bytes exactly as received (never re-serialised JSON).
 *
 * **Verification recipe** (what {@link verifyNotification} does; any language can repeat it):
 * 1. Read `Tollgate-Signature`; split on `,`; each item is `name=value`; take `t` and the entries whose
 *    name is a key id you hold.
 * 2. Refuse when `|now − t|` exceeds your tolerance (default 300 s): this bounds replays.
 * 3. Compute the HMAC for each of your keys found in the header and compare it in constant time;
 *    accept when one matches.
 * 4. Deduplicate on the payload's `id` (deliveries are at least once).
 *
 * @example
 * ```ts
 * import { notificationHeaderNames } from '@tollgate/core/x402';
 * const signature = request.headers.get(notificationHeaderNames.signature);
 * ```
 */
export const notificationHeaderNames = { timestamp: 'Tollgate-Timestamp', signature: 'Tollgate-Signature' } as const;

/** A notify key: its id and its secret (the `notifyHmacKey` string, or raw bytes). */
export interface NotificationKey {
  id: string;
  key: string | Uint8Array;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

function keyBytes(key: string | Uint8Array): Uint8Array {
  return typeof key === 'string' ? utf8Encode(key) : key;
}

function signedBytes(timestamp: number, body: string | Uint8Array): Uint8Array {
  const prefix = utf8Encode(`${timestamp}.`);
  const bytes = typeof body === 'string' ? utf8Encode(body) : body;
  const message = new Uint8Array(prefix.length + bytes.length);
  message.set(prefix, 0);
  message.set(bytes, prefix.length);
  return message;
}

/**
 * Signs a notification body with every live notify key of the merchant.
 *
 * @param params - The raw body, the keys (ids of `[A-Za-z0-9_-]`, not `t`) and the Unix timestamp.
 * @returns The two headers, lowercase-named: `tollgate-timestamp`, `tollgate-signature`.
 * @throws TypeError for an empty key list, a bad key id or timestamp (caller bugs).
 *
 * @example
 * ```ts
 * import { unixSeconds } from '@tollgate/core';
 * import { signNotification } from '@tollgate/core/x402';
 * const headers = signNotification({ body, keys: [{ id: merchant.notifyHmacKeyId, key: merchant.notifyHmacKey }], timestamp: unixSeconds(clock) });
 * await fetch(notifyUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
 * ```
 */
export function signNotification(params: { body: string | Uint8Array; keys: readonly NotificationKey[]; timestamp: number }): Record<string, string> {
  const { timestamp, keys } = params;
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('timestamp must be Unix seconds.');
  if (keys.length === 0) throw new TypeError('signNotification needs at least one key.');
  const message = signedBytes(timestamp, params.body);
  const signatures = keys.map(({ id, key }) => {
    if (!KEY_ID.test(id) || id === 't') throw new TypeError(`Notify key id ${JSON.stringify(id)} must be 1-64 characters of [A-Za-z0-9_-] and not "t".`);
    return `${id}=${hexEncode(hmacSha256(keyBytes(key), message))}`;
  });
  return { 'tollgate-timestamp': String(timestamp), 'tollgate-signature': [`t=${timestamp}`, ...signatures].join(',') };
}

/** Why a notification was refused. */
export type NotificationSignatureFailure = 'missing_signature' | 'malformed_signature' | 'timestamp_mismatch' | 'stale_timestamp' | 'unknown_key' | 'bad_signature';

/**
 * A notification whose signature does not verify. Code `unauthorized`; `details.reason` says why
 * ({@link NotificationSignatureFailure}). Answer it with 400/401 and do not process the body.
 *
 * @example
 * ```ts
 * import { verifyNotification, NotificationSignatureError } from '@tollgate/core';
 * try { verifyNotification(params); } catch (e) { if (e instanceof NotificationSignatureError) console.log(e.reason); }
 * ```
 */
export class NotificationSignatureError extends TollgateError {
  override readonly name = 'NotificationSignatureError';
  declare readonly code: 'unauthorized';
  readonly reason: NotificationSignatureFailure;

  /**
   * @param reason - Why.
   * @param message - A human explanation.
   */
  constructor(reason: NotificationSignatureFailure, message: string) {
    super('unauthorized', message, { details: { reason } });
    this.reason = reason;
  }
}

/** Request headers as Node (`IncomingHttpHeaders`), plain objects or fetch `Headers` carry them. */
export type NotificationHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: NotificationHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === lower) return Array.isArray(value) ? value.join(',') : value;
  }
  return undefined;
}

/** Parameters of {@link verifyNotification}. */
export interface VerifyNotificationParams {
  /** The raw body exactly as received. */
  body: string | Uint8Array;
  headers: NotificationHeaders;
  /** Your notify keys by id (the current one, and the previous one during a rollover). */
  keys: Readonly<Record<string, string | Uint8Array>>;
  /** Unix seconds. */
  now: number;
  /** Largest accepted `|now − t|`. Default 300. */
  toleranceSeconds?: number;
}

/**
 * Verifies a merchant notification (the recipe of {@link notificationHeaderNames}): the signature header parses, its `t` equals
 * `Tollgate-Timestamp` when that header is present, `t` lies within `toleranceSeconds` of `now`, and
 * one of your keys produced one of the signatures (constant-time comparison).
 *
 * @param params - Body, headers, keys, now and tolerance.
 * @returns The key id that matched and the signed timestamp.
 * @throws {@link NotificationSignatureError} with the reason.
 *
 * @example
 * ```ts
 * import { verifyNotification } from '@tollgate/core';
 * const { keyId } = verifyNotification({ body: rawBody, headers: req.headers, keys: { [keyId]: notifyHmacKey }, now: Math.floor(Date.now() / 1000) });
 * const event = JSON.parse(rawBody);
 * ```
 */
export function verifyNotification(params: VerifyNotificationParams): { keyId: string; timestamp: number } {
  const tolerance = params.toleranceSeconds ?? 300;
  const signatureHeader = header(params.headers, notificationHeaderNames.signature);
  if (signatureHeader === undefined || signatureHeader.trim() === '') throw new NotificationSignatureError('missing_signature', 'The Tollgate-Signature header is missing.');

  let timestamp: number | undefined;
  const signatures: { keyId: string; mac: Uint8Array }[] = [];
  for (const item of signatureHeader.split(',')) {
    const separator = item.indexOf('=');
    const name = item.slice(0, separator).trim();
    const value = item.slice(separator + 1).trim();
    if (separator <= 0) throw new NotificationSignatureError('malformed_signature', 'Tollgate-Signature items must be name=value.');
    if (name === 't') {
      if (timestamp !== undefined || !/^[0-9]{1,15}$/.test(value)) throw new NotificationSignatureError('malformed_signature', 'Tollgate-Signature needs exactly one numeric t.');
      timestamp = Number(value);
    } else if (/^[0-9a-fA-F]{64}$/.test(value)) {
      signatures.push({ keyId: name, mac: hexDecode(value) });
    } else {
      throw new NotificationSignatureError('malformed_signature', 'Tollgate-Signature values must be 32-byte hex HMACs.');
    }
  }
  if (timestamp === undefined) throw new NotificationSignatureError('malformed_signature', 'Tollgate-Signature has no t.');
  const timestampHeader = header(params.headers, notificationHeaderNames.timestamp);
  if (timestampHeader !== undefined && timestampHeader.trim() !== String(timestamp)) {
    throw new NotificationSignatureError('timestamp_mismatch', 'Tollgate-Timestamp differs from the signed t.');
  }
  if (Math.abs(params.now - timestamp) > tolerance) throw new NotificationSignatureError('stale_timestamp', `The notification is more than ${tolerance} s away from now.`);

  const candidates = signatures.filter(({ keyId }) => Object.hasOwn(params.keys, keyId));
  if (candidates.length === 0) throw new NotificationSignatureError('unknown_key', 'No signature was made with a key you hold.');
  const message = signedBytes(timestamp, params.body);
  for (const { keyId, mac } of candidates) {
    const key = params.keys[keyId] as string | Uint8Array;
    if (constantTimeEqual(hmacSha256(keyBytes(key), message), mac)) return { keyId, timestamp };
  }
  throw new NotificationSignatureError('bad_signature', 'The notification signature does not match its body.');
}
