import { constantTimeEqual } from '../../crypto/constant-time';
import { hmacSha256 } from '../../crypto/hash';
import { hexDecode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';

/** The billing providers whose webhooks the service verifies (license spec, "Inbound billing webhooks"). */
export const billingProviders = ['stripe', 'paddle', 'lemonsqueezy'] as const;

/** One of {@link billingProviders}. */
export type WebhookProvider = (typeof billingProviders)[number];

/** How far a Stripe or Paddle signature timestamp may be from the server's clock, either way (license spec, "Limits"). */
export const webhookToleranceSeconds = 300;

/** Why a signature was refused; every reason is answered 401 `invalid_signature`. */
export type WebhookSignatureFailure = 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_match';

/** The outcome of {@link verifyWebhookSignature}. */
export type WebhookSignatureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: WebhookSignatureFailure };

/** The header each provider signs with (lower-case, as the HTTP layer hands headers over). */
export const webhookSignatureHeaders: Readonly<Record<WebhookProvider, string>> = {
  stripe: 'stripe-signature',
  paddle: 'paddle-signature',
  lemonsqueezy: 'x-signature',
};

// Headers are capped by Node (16 KiB); this cap keeps a hostile header from costing more than a few HMACs.
const maxHeaderLength = 4096;
const maxCandidates = 8;
const hexSignature = /^[0-9a-fA-F]{64}$/;
const unixSeconds = /^[0-9]{1,12}$/;

/** `name=value` items of a signature header split on `separator` (the value keeps any further `=`). */
function headerItems(header: string, separator: string): [string, string][] | undefined {
  const items: [string, string][] = [];
  for (const part of header.split(separator)) {
    const at = part.indexOf('=');
    if (at <= 0) return undefined;
    items.push([part.slice(0, at).trim(), part.slice(at + 1).trim()]);
  }
  return items;
}

/** The timestamp and the candidate signatures of a timestamped header (`t`/`v1` or `ts`/`h1`). */
function timestamped(header: string, separator: string, timeName: string, macName: string): { time: number; timeText: string; macs: Uint8Array[] } | undefined {
  const items = headerItems(header, separator);
  if (items === undefined) return undefined;
  const times = items.filter(([name]) => name === timeName);
  // Only the HMAC-SHA256 scheme counts: other schemes (Stripe's v0) are skipped, never a downgrade.
  const macs = items.filter(([name, value]) => name === macName && hexSignature.test(value)).map(([, value]) => hexDecode(value.toLowerCase()));
  const time = times[0]?.[1];
  if (times.length !== 1 || time === undefined || !unixSeconds.test(time) || macs.length === 0 || macs.length > maxCandidates) return undefined;
  return { time: Number(time), timeText: time, macs };
}

/** True when one of `secrets` MACs `signed` to one of `macs` (every comparison in constant time). */
function anySecretMatches(secrets: readonly string[], signed: Uint8Array, macs: readonly Uint8Array[]): boolean {
  let matched = false;
  for (const secret of secrets) {
    const expected = hmacSha256(utf8Encode(secret), signed);
    // No early exit: the work does not depend on which secret or candidate matched.
    for (const mac of macs) if (constantTimeEqual(expected, mac)) matched = true;
  }
  return matched;
}

function concat(prefix: string, body: Uint8Array): Uint8Array {
  const head = utf8Encode(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/**
 * Checks a billing webhook's signature over the raw body exactly as received, with each provider's
 * documented scheme:
 *
 * - Stripe, `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`: HMAC-SHA256 over `"<t>." + body`; only
 *   `v1` entries count (a `v0` is ignored).
 * - Paddle, `Paddle-Signature: ts=<unix>;h1=<hex>[;h1=<hex>…]`: HMAC-SHA256 over `"<ts>:" + body`.
 * - Lemon Squeezy, `X-Signature: <hex>`: HMAC-SHA256 over the body.
 *
 * The key is the UTF-8 bytes of the secret as the provider shows it (`whsec_…`, `pdl_ntfset_…`, the
 * chosen Lemon Squeezy secret). Any of `secrets` may match (operators roll secrets by configuring the
 * new one next to the old). Stripe and Paddle timestamps must be within {@link webhookToleranceSeconds}
 * of `nowSeconds` in either direction; Lemon Squeezy signs no time, and redeliveries are stopped by the
 * (provider, event id) dedupe instead. Comparisons are constant time.
 *
 * @param provider - Which provider's scheme.
 * @param headers - Lower-case request headers.
 * @param body - The raw body bytes.
 * @param secrets - The provider's configured secrets (none: always `no_match`).
 * @param nowSeconds - The server's time in Unix seconds.
 * @returns `{ ok: true }` or the reason of the refusal.
 * @example
 * ```ts
 * import { verifyWebhookSignature } from '@tollgate/core/license';
 * const check = verifyWebhookSignature('stripe', request.headers, request.body, ['whsec_…'], Math.floor(Date.now() / 1000));
 * if (!check.ok) refuse(check.reason);
 * ```
 */
export function verifyWebhookSignature(
  provider: WebhookProvider,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  secrets: readonly string[],
  nowSeconds: number,
): WebhookSignatureCheck {
  const header = headers[webhookSignatureHeaders[provider]];
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing_header' };
  if (header.length > maxHeaderLength) return { ok: false, reason: 'malformed_header' };
  if (provider === 'lemonsqueezy') {
    const value = header.trim();
    if (!hexSignature.test(value)) return { ok: false, reason: 'malformed_header' };
    return anySecretMatches(secrets, body, [hexDecode(value.toLowerCase())]) ? { ok: true } : { ok: false, reason: 'no_match' };
  }
  const parsed = provider === 'stripe' ? timestamped(header, ',', 't', 'v1') : timestamped(header, ';', 'ts', 'h1');
  if (parsed === undefined) return { ok: false, reason: 'malformed_header' };
  if (Math.abs(nowSeconds - parsed.time) > webhookToleranceSeconds) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  // The timestamp as sent, digits unchanged: that string is what the provider signed.
  const signed = concat(`${parsed.timeText}${provider === 'stripe' ? '.' : ':'}`, body);
  return anySecretMatches(secrets, signed, parsed.macs) ? { ok: true } : { ok: false, reason: 'no_match' };
}
