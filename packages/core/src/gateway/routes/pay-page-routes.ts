import { route } from '../../http/routes';
import type { HttpResponse, Route } from '../../http/types';
import type { RateLimiter, RateLimitRule } from '../../storage/rate-limit/rate-limiter';
import type { Clock } from '../../time/clock';
import { payPageAssets, type PayPageAsset } from '../pay-page/pay-assets';
import { loadPayPageView, type PayPageViewDeps } from '../pay-page/pay-page-view';
import { renderPayPage, renderRefusalPage, type TransactionLink } from '../pay-page/render-pay-page';

/** What the pay page routes need. */
export interface PayPageRouteDeps extends PayPageViewDeps {
  readonly clock: Clock;
  /** Limiter of `GET /pay/:refId` per client address (each page reads the database); none without it. */
  readonly rateLimiter?: RateLimiter;
  /** Its rule; required with `rateLimiter`. */
  readonly rateLimit?: RateLimitRule;
  /** Explorer transaction URL templates (`{tx}`) by chain id; {@link defaultTransactionExplorers} by default. */
  readonly explorers?: Readonly<Record<number, string>>;
  /**
   * True when this gateway serves `GET /tx/:txHash` to anyone (evidence access `public`): chains without
   * an explorer then link the receipt's transaction there.
   */
  readonly publicTxStatus?: boolean;
}

/** Block explorers of the default networks (the `local` chain has none). */
export const defaultTransactionExplorers: Readonly<Record<number, string>> = Object.freeze({
  8453: 'https://basescan.org/tx/{tx}',
  84532: 'https://sepolia.basescan.org/tx/{tx}',
});

/**
 * The pay page's Content-Security-Policy: nothing but same-origin script, style, images and `fetch`
 * (to `/receive`); no inline script or style, no plugins, no `<base>`, no form posts, never framed
 * (clickjacking a signing page is the attack to stop), and Trusted Types required so that no script can
 * write HTML from strings. The script and stylesheet are also pinned by Subresource Integrity.
 */
export const payPageContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Headers of every pay page (payable or refused): HTML, the CSP, never cached, never framed, no referrer. */
export const payPageHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': payPageContentSecurityPolicy,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
});

function assetRoute(asset: PayPageAsset): Route {
  // The name changes with the content, so a browser may keep it forever.
  const headers = {
    'content-type': asset.contentType,
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
  };
  return route({ method: 'GET', path: asset.path, handler: () => ({ status: 200, headers, body: asset.body }) });
}

function transactionLinkFor(deps: PayPageRouteDeps, chainId: number): TransactionLink | undefined {
  const explorer = (deps.explorers ?? defaultTransactionExplorers)[chainId];
  if (explorer !== undefined) return { template: explorer, text: `View the transaction on ${new URL(explorer.replace('{tx}', '0x')).host}` };
  // Relative to /pay/<refId>, so it works behind a path prefix too.
  return deps.publicTxStatus === true ? { template: '../tx/{tx}', text: 'Check the transaction with this payment service' } : undefined;
}

/**
 * The wallet page routes: `GET /pay/:refId` (server-rendered HTML: the ref and its payment form, or a
 * 404/410 page saying why it cannot be paid; 429 over the rate limit) and its two content-hashed files
 * under `/pay/assets/` (immutable). The page's script pays through the same-origin `/receive` route, so
 * mount these next to `receiveRoutes`.
 *
 * @param deps - Ref store, networks, clock, rate limit and transaction links.
 * @returns The routes.
 * @example
 * ```ts
 * import { payPageRoutes } from '@tollgate/core/gateway';
 * const routes = payPageRoutes({ refs: stores.refs, networks, clock, rateLimiter, rateLimit: { limit: 120, windowMs: 60_000 } });
 * ```
 */
export function payPageRoutes(deps: PayPageRouteDeps): Route[] {
  const { rateLimiter, rateLimit } = deps;
  if ((rateLimiter === undefined) !== (rateLimit === undefined)) throw new TypeError('payPageRoutes needs rateLimiter and rateLimit together.');
  const assets = payPageAssets();
  const page = (status: number, html: string, extra: Record<string, string> = {}): HttpResponse => ({ status, headers: { ...payPageHeaders, ...extra }, body: html });
  return [
    route({
      method: 'GET',
      path: '/pay/:refId',
      handler: async (request) => {
        // Checked in the handler rather than by `gatewayRateLimit`, whose refusal is the JSON envelope: a person reads this one.
        if (rateLimiter !== undefined && rateLimit !== undefined) {
          const decision = await rateLimiter.consume(`gateway:payPage:${request.remoteAddress ?? 'unknown'}`, rateLimit);
          if (!decision.allowed) {
            const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
            const refused = renderRefusalPage({ kind: 'rate_limited', retryAfterSeconds }, assets);
            return page(refused.status, refused.html, { 'retry-after': String(retryAfterSeconds) });
          }
        }
        const view = await loadPayPageView(deps, request.params.refId, Math.floor(deps.clock.now() / 1000));
        if (view.kind !== 'payable') {
          const refused = renderRefusalPage(view, assets);
          return page(refused.status, refused.html);
        }
        const transactionLink = transactionLinkFor(deps, view.network.chainId);
        return page(200, renderPayPage(view, { assets, ...(transactionLink === undefined ? {} : { transactionLink }) }));
      },
    }),
    assetRoute(assets.script),
    assetRoute(assets.style),
  ];
}
