import { classifyIpAddress } from './ip-ranges';

/** Why a URL is not accepted as a public HTTPS endpoint. */
export type UnsafeUrlReason =
  | 'not_a_url'
  | 'too_long'
  | 'control_characters'
  | 'not_https'
  | 'credentials'
  | 'port'
  | 'fragment'
  | 'local_host_name'
  | 'single_label_host'
  | 'non_public_ip';

/** The verdict of {@link checkPublicHttpsUrl}. */
export type PublicHttpsUrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly reason: UnsafeUrlReason; readonly message: string };

/** Longest URL accepted as a webhook or notify URL. */
export const maxPublicUrlLength = 2048;

// Names that never resolve to a public host: RFC 6761/6762 special-use and common private suffixes.
const localSuffixes = ['localhost', 'local', 'localdomain', 'internal', 'intranet', 'lan', 'home.arpa', 'invalid'];

function refuse(reason: UnsafeUrlReason, message: string): PublicHttpsUrlCheck {
  return { ok: false, reason, message };
}

/**
 * Checks that a URL is a public HTTPS endpoint the gateway may call (merchant webhooks, per-ref notify
 * URLs), without any DNS lookup: `https:` only, port 443, no user name or password, no fragment, no
 * whitespace or control characters (which URL parsers silently strip), a host that is not `localhost`,
 * `*.localhost`, another local-only suffix (`.local`, `.internal`, `.home.arpa`, …) or a single label,
 * and no IP literal outside public unicast space (see `classifyIpAddress`; IPv4 written in decimal,
 * octal or hex forms is normalised by the URL parser first, so `https://2130706433/` is loopback).
 *
 * A host name can still resolve to a private address: delivery re-checks the resolved addresses.
 *
 * @param value - The URL as received.
 * @returns `{ ok: true, url }` or the first reason it is refused.
 * @example
 * ```ts
 * import { checkPublicHttpsUrl } from '@tollgate/core/gateway';
 * checkPublicHttpsUrl('https://hooks.example.com/tollgate').ok; // true
 * checkPublicHttpsUrl('https://[::ffff:127.0.0.1]/x'); // { ok: false, reason: 'non_public_ip', … }
 * ```
 */
export function checkPublicHttpsUrl(value: string): PublicHttpsUrlCheck {
  if (value.length > maxPublicUrlLength) return refuse('too_long', `The URL is longer than ${maxPublicUrlLength} characters.`);
  if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) {
    return refuse('control_characters', 'The URL contains whitespace or control characters.');
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('not_a_url', 'The value is not an absolute URL.');
  }
  if (url.protocol !== 'https:') return refuse('not_https', 'The URL must use https.');
  if (url.username !== '' || url.password !== '') return refuse('credentials', 'The URL must not contain a user name or password.');
  // The URL parser drops the default port, so any remaining port is not 443.
  if (url.port !== '') return refuse('port', 'The URL must use the default HTTPS port 443.');
  if (value.includes('#')) return refuse('fragment', 'The URL must not contain a fragment.');
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const ip = classifyIpAddress(host);
  if (ip !== undefined) {
    if (ip.kind === 'public') return { ok: true, url };
    return refuse('non_public_ip', `The URL points at a ${ip.kind.replace('_', '-')} IPv${ip.version} address.`);
  }
  if (localSuffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) {
    return refuse('local_host_name', 'The URL host is a local-only name.');
  }
  if (!host.includes('.')) return refuse('single_label_host', 'The URL host must be a fully qualified domain name.');
  return { ok: true, url };
}
