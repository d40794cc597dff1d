import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';

/** The only action a registration challenge can be issued for. */
export const merchantRegisterAction = 'merchant.register';

/** How long a registration challenge can be used: 5 minutes, enough to sign it in a wallet. */
export const challengeLifetimeSeconds = 300;

/**
 * The canonical registration challenge: every field the signature binds. It is returned as `message`
 * next to its text rendering `signingMessage`, which is what the wallet signs (EIP-191 `personal_sign`).
 */
export interface ChallengeMessage {
  /** Identifier of the challenge (32 hex digits). */
  readonly challengeId: string;
  /** Public URL of the gateway that issued it (`GATEWAY_PUBLIC_URL`). */
  readonly origin: string;
  /** Always `merchant.register`. */
  readonly action: string;
  /** The address being registered, EIP-55 checksummed. */
  readonly payTo: string;
  /** Network name as the API takes it (`base`). */
  readonly network: string;
  /** CAIP-2 id of that network (`eip155:8453`). */
  readonly chainId: string;
  /** Lowercase hex SHA-256 of the UTF-8 webhook URL exactly as sent, or `null` without one. */
  readonly webhookSha256: string | null;
  /** 32 random hex digits. */
  readonly nonce: string;
  /** Issue time, ISO 8601 UTC with whole seconds (`2026-01-01T00:00:00Z`). */
  readonly issuedAt: string;
  /** Expiry time, same form: {@link challengeLifetimeSeconds} after `issuedAt`. */
  readonly expiresAt: string;
}

/**
 * Formats a time as the challenge writes it: ISO 8601 in UTC with whole seconds and a `Z`.
 *
 * @param date - The time (milliseconds are dropped).
 * @returns For example `2026-01-01T00:05:00Z`.
 * @example
 * ```ts
 * import { challengeTime } from '@tollgate/core/gateway';
 * challengeTime(new Date(Date.UTC(2026, 0, 1))); // '2026-01-01T00:00:00Z'
 * ```
 */
export function challengeTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * The webhook binding of a challenge: lowercase hex SHA-256 of the URL's UTF-8 bytes exactly as sent.
 *
 * @param webhookUrl - The URL, or `undefined`.
 * @returns 64 hex digits, or `null` without a URL.
 * @example
 * ```ts
 * import { webhookUrlSha256 } from '@tollgate/core/gateway';
 * webhookUrlSha256('https://hooks.example.com/tollgate'); // 64 hex digits
 * ```
 */
export function webhookUrlSha256(webhookUrl: string | undefined | null): string | null {
  return webhookUrl === undefined || webhookUrl === null ? null : hexEncode(sha256(utf8Encode(webhookUrl)));
}

/**
 * Renders the text a wallet signs for a registration challenge. The format is stable (wallets and
 * scripts reproduce it): lines separated by `\n`, no trailing newline, field values as in the message.
 *
 * ```text
 * Tollgate merchant registration
 *
 * Sign to prove that you control this address and register it with the payment gateway below. Signing sends no transaction and costs nothing.
 *
 * Origin: https://pay.example.com
 * Action: merchant.register
 * Pay-To: 0x90F79bf6EB2c4f870365E785982E1f101E93b906
 * Network: base (eip155:8453)
 * Webhook-SHA256: none
 * Nonce: 3f1c0e…
 * Issued-At: 2026-01-01T00:00:00Z
 * Expiration-Time: 2026-01-01T00:05:00Z
 * Challenge-ID: 9a0b…
 * ```
 *
 * @param message - The challenge.
 * @returns The signing message.
 * @throws TypeError when a field contains a line break (it would forge another line).
 * @example
 * ```ts
 * import { renderSigningMessage } from '@tollgate/core/gateway';
 * const text = renderSigningMessage(challenge.message);
 * const signature = await account.signMessage({ message: text });
 * ```
 */
export function renderSigningMessage(message: ChallengeMessage): string {
  const fields: [string, string][] = [
    ['Origin', message.origin],
    ['Action', message.action],
    ['Pay-To', message.payTo],
    ['Network', `${message.network} (${message.chainId})`],
    ['Webhook-SHA256', message.webhookSha256 ?? 'none'],
    ['Nonce', message.nonce],
    ['Issued-At', message.issuedAt],
    ['Expiration-Time', message.expiresAt],
    ['Challenge-ID', message.challengeId],
  ];
  for (const [name, value] of fields) {
    if (/[\r\n\u2028\u2029]/.test(value)) throw new TypeError(`Challenge field ${name} contains a line break.`);
  }
  return [
    'Tollgate merchant registration',
    '',
    'Sign to prove that you control this address and register it with the payment gateway below. Signing sends no transaction and costs nothing.',
    '',
    ...fields.map(([name, value]) => `${name}: ${value}`),
  ].join('\n');
}
