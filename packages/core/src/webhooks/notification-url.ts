import { classifyIpAddress, type IpAddressKind } from '../net/ip-ranges';
import { checkPublicHttpsUrl, type PublicHttpsUrlCheck } from '../net/url-safety';

/** Options shared by every notification URL and address check. */
export interface NotificationUrlPolicy {
  /**
   * **Tests only.** Also accepts `http:`, any port, and loopback destinations (`127.0.0.0/8`, `::1`),
   * so a test can deliver to a receiver on this machine. Every other rule stays on: private, link-local,
   * CGNAT and other non-public destinations are still refused. Never set it from configuration.
   */
  readonly insecureAllowLoopbackForTests?: boolean;
}

function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

/**
 * Whether a resolved (or literal) IP address may be connected to for a notification: public unicast
 * only, or loopback under the test policy. Anything that does not parse as an IP address (for example
 * an IPv6 address with a zone id) is refused.
 *
 * @param address - An IPv4 or IPv6 address as a resolver returns it.
 * @param policy - The test policy (see {@link NotificationUrlPolicy}).
 * @returns `{ allowed: true }`, or the address's kind when refused (`unknown` when it is no IP address).
 * @example
 * ```ts
 * import { notificationAddressAllowed } from '@tollgate/core/gateway';
 * notificationAddressAllowed('169.254.169.254'); // { allowed: false, kind: 'link_local' }
 * ```
 */
export function notificationAddressAllowed(address: string, policy: NotificationUrlPolicy = {}): { allowed: true } | { allowed: false; kind: IpAddressKind | 'unknown' } {
  const kind = classifyIpAddress(address)?.kind ?? 'unknown';
  if (kind === 'public' || (kind === 'loopback' && policy.insecureAllowLoopbackForTests === true)) return { allowed: true };
  return { allowed: false, kind };
}

/**
 * Checks a notification destination before any network activity: the rules of `checkPublicHttpsUrl`
 * (public HTTPS on port 443, no credentials, fragment, local-only or single-label names, no non-public
 * IP literal). A host name can still resolve to a private address; the transport checks every resolved
 * address before it connects.
 *
 * Under `insecureAllowLoopbackForTests` the URL may also use `http:`, any port and a loopback IP
 * literal; names and every other rule are checked as usual.
 *
 * @param value - The URL as stored (the ref's `notifyUrl` or the merchant's webhook URL).
 * @param policy - The test policy.
 * @returns `{ ok: true, url }` or the reason it is refused.
 * @example
 * ```ts
 * import { checkNotificationUrl } from '@tollgate/core/gateway';
 * checkNotificationUrl('https://hooks.example.com/tollgate').ok; // true
 * checkNotificationUrl('http://127.0.0.1:8080/hook', { insecureAllowLoopbackForTests: true }).ok; // true
 * ```
 */
export function checkNotificationUrl(value: string, policy: NotificationUrlPolicy = {}): PublicHttpsUrlCheck {
  const strict = checkPublicHttpsUrl(value);
  if (strict.ok || policy.insecureAllowLoopbackForTests !== true) return strict;
  // Only the scheme, the port and loopback are relaxed; every other refusal stands.
  if (strict.reason !== 'not_https' && strict.reason !== 'port' && strict.reason !== 'non_public_ip') return strict;
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return strict;
  // Judge the same URL as if it were HTTPS on port 443.
  const asHttps = new URL(value);
  asHttps.protocol = 'https:';
  asHttps.port = '';
  const relaxed = checkPublicHttpsUrl(asHttps.href);
  if (!relaxed.ok && !(relaxed.reason === 'non_public_ip' && classifyIpAddress(bareHost(asHttps.hostname))?.kind === 'loopback')) return relaxed;
  if (value.includes('#')) return { ok: false, reason: 'fragment', message: 'The URL must not contain a fragment.' };
  return { ok: true, url };
}
