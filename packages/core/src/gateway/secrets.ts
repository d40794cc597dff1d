import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64Decode } from '../crypto/base64';
import { hexDecode } from '../crypto/hex';
import { utf8Encode } from '../crypto/utf8';

/** Length of the gateway's server secret: 256 bits. */
export const gatewaySecretBytes = 32;

/**
 * The subkeys the gateway derives from its one server secret. Each has one job, so a leak of one (for
 * example the cursor key, which any client sees the output of) says nothing about the others.
 */
export interface GatewayKeys {
  /** Key of `keyedHash(…, apiKey, 'api-key')`: API keys are stored only as this hash. */
  readonly apiKeyHash: Uint8Array;
  /** MAC key of list cursors. */
  readonly cursor: Uint8Array;
  /** Root from which every notify HMAC key is derived (`deriveNotifyHmacKey`). */
  readonly notifyRoot: Uint8Array;
}

/**
 * HKDF-SHA-256 info labels of the subkeys (salt `tollgate/gateway`). Stable: changing one changes every
 * stored API-key hash or every notify key.
 */
export const gatewayKeyLabels = {
  apiKeyHash: 'tollgate/gateway/api-key-hash/v1',
  cursor: 'tollgate/gateway/cursor/v1',
  notifyRoot: 'tollgate/gateway/notify-root/v1',
} as const;

const hexSecret = /^[0-9a-fA-F]{64}$/;
const base64Secret = /^[A-Za-z0-9+/_-]{43}=?$/;

/**
 * Parses the gateway secret as configured: 32 bytes written as 64 hex digits, or as base64 or base64url
 * (43 characters, or 44 with padding). The error never repeats the value.
 *
 * @param text - The configured secret (e.g. `GATEWAY_SECRET`).
 * @returns The 32 secret bytes.
 * @throws TypeError when it is not 32 bytes in one of those forms.
 * @example
 * ```ts
 * import { parseGatewaySecret } from '@tollgate/core';
 * const secret = parseGatewaySecret('00'.repeat(32)); // Uint8Array(32)
 * ```
 */
export function parseGatewaySecret(text: string): Uint8Array {
  const trimmed = text.trim();
  if (hexSecret.test(trimmed)) return hexDecode(trimmed.toLowerCase());
  if (base64Secret.test(trimmed)) {
    try {
      const bytes = base64Decode(trimmed);
      if (bytes.length === gatewaySecretBytes) return bytes;
    } catch {
      // Falls through to the generic refusal, which does not echo the secret.
    }
  }
  throw new TypeError(`The gateway secret must be ${gatewaySecretBytes} bytes written as 64 hex digits or as base64.`);
}

/**
 * Derives the gateway's subkeys from its server secret with HKDF-SHA-256 under the labels of
 * {@link gatewayKeyLabels}.
 *
 * @param secret - The 32-byte server secret.
 * @returns The subkeys.
 * @throws TypeError when the secret is not 32 bytes.
 * @example
 * ```ts
 * import { deriveGatewayKeys, parseGatewaySecret } from '@tollgate/core';
 * const keys = deriveGatewayKeys(parseGatewaySecret(configuredSecret));
 * ```
 */
export function deriveGatewayKeys(secret: Uint8Array): GatewayKeys {
  if (!(secret instanceof Uint8Array) || secret.length !== gatewaySecretBytes) {
    throw new TypeError(`The gateway secret must be exactly ${gatewaySecretBytes} bytes.`);
  }
  const salt = utf8Encode('tollgate/gateway');
  const derive = (label: string) => hkdf(sha256, secret, salt, utf8Encode(label), 32);
  return Object.freeze({
    apiKeyHash: derive(gatewayKeyLabels.apiKeyHash),
    cursor: derive(gatewayKeyLabels.cursor),
    notifyRoot: derive(gatewayKeyLabels.notifyRoot),
  });
}
