import { base64Decode, base64UrlEncode } from '../crypto/base64';
import { constantTimeEqual } from '../crypto/constant-time';
import { hmacSha256 } from '../crypto/hash';
import { utf8Decode, utf8Encode } from '../crypto/utf8';

/**
 * The gateway's opaque, tamper-proof cursors: `base64url(payload) "." base64url(tag)`, the payload a JSON
 * text and the tag HMAC-SHA-256 under the cursor key over `domain NUL payload`. Each kind of cursor has its
 * own domain, so one kind never opens as another even under the same key. What the payload holds, and the
 * refusal a caller answers, are the kind's (`./list-cursor`, `./evidence/history-cursor`).
 *
 * @module
 */

/** One kind of cursor, from {@link sealedCursor}. */
export interface SealedCursor {
  /** The cursor of `payload` (a JSON value). */
  seal(key: Uint8Array, payload: unknown): string;
  /**
   * The payload of a cursor this kind sealed under `key`, or `undefined` for anything else (an altered
   * character, another key or domain, padding, a payload over the bound, garbage). The payload is parsed
   * only after its tag verifies.
   */
  open(key: Uint8Array, cursor: string): unknown;
}

/**
 * Defines one kind of cursor.
 *
 * @param domain - Its MAC domain, e.g. `tollgate/ref-cursor/v1`.
 * @param maxPayloadChars - The longest base64url payload it opens (its payloads' bound).
 * @returns Its `seal` and `open`.
 * @example
 * ```ts
 * const cursors = sealedCursor('tollgate/ref-cursor/v1', 900);
 * const cursor = cursors.seal(keys.cursor, { v: 1, t: 1767225600123, i: refId });
 * const payload = cursors.open(keys.cursor, cursor); // { v: 1, t: …, i: … }, or undefined
 * ```
 */
export function sealedCursor(domain: string, maxPayloadChars: number): SealedCursor {
  const prefix = utf8Encode(`${domain}\u0000`);
  // Unpadded base64url only, so each payload has exactly one spelling.
  const shape = new RegExp(`^[A-Za-z0-9_-]{1,${maxPayloadChars}}\\.[A-Za-z0-9_-]{43}$`);

  function tag(key: Uint8Array, payload: Uint8Array): Uint8Array {
    const signed = new Uint8Array(prefix.length + payload.length);
    signed.set(prefix, 0);
    signed.set(payload, prefix.length);
    return hmacSha256(key, signed);
  }

  return {
    seal(key, payload) {
      const bytes = utf8Encode(JSON.stringify(payload));
      return `${base64UrlEncode(bytes)}.${base64UrlEncode(tag(key, bytes))}`;
    },

    open(key, cursor) {
      if (!shape.test(cursor)) return undefined;
      const [payloadText, tagText] = cursor.split('.') as [string, string];
      try {
        const payload = base64Decode(payloadText);
        if (!constantTimeEqual(base64Decode(tagText), tag(key, payload))) return undefined;
        return JSON.parse(utf8Decode(payload)) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}
