import type { GatewayNetwork } from '../networks';
import { escapeHtml } from './html';
import type { PayPageAssets } from './pay-assets';
import type { PayPageView } from './pay-page-view';
import { formatTokenAmount } from './usdc-amount';

/** Where the receipt's transaction can be checked: a URL template with `{tx}`, and the link's text. */
export interface TransactionLink {
  /** Absolute (`https://basescan.org/tx/{tx}`) or relative to the page (`../tx/{tx}`). */
  readonly template: string;
  readonly text: string;
}

/** What {@link renderPayPage} needs besides the view. */
export interface PayPageRenderOptions {
  readonly assets: PayPageAssets;
  /** The receipt's "verify" link for this ref's chain; none when undefined. */
  readonly transactionLink?: TransactionLink;
}

/** A page that refuses: the view that cannot be paid, or the rate limit. */
export type PayPageRefusal = Exclude<PayPageView, { kind: 'payable' }> | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number };

const networkNames: Readonly<Record<string, string>> = { base: 'Base', 'base-sepolia': 'Base Sepolia', local: 'Local test chain' };

/**
 * How the page names a network to people: `Base (chain id 8453)`; unknown names as configured.
 *
 * @param network - The network.
 * @returns The label.
 * @example
 * ```ts
 * import { networkLabel } from '@tollgate/core/gateway';
 * networkLabel({ name: 'base', chainId: 8453 }); // 'Base (chain id 8453)'
 * ```
 */
export function networkLabel(network: Pick<GatewayNetwork, 'name' | 'chainId'>): string {
  return `${networkNames[network.name] ?? network.name} (chain id ${network.chainId})`;
}

function utcTime(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function document(title: string, assets: PayPageAssets, body: string, withScript: boolean): string {
  const { script, style } = assets;
  // Relative URLs: the page works under any path prefix a proxy adds in front of the gateway.
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    `<link rel="stylesheet" href="assets/${style.fileName}" integrity="${style.integrity}">`,
    ...(withScript ? [`<script src="assets/${script.fileName}" integrity="${script.integrity}" defer></script>`] : []),
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function fact(term: string, valueHtml: string): string {
  return `<div><dt>${escapeHtml(term)}</dt><dd>${valueHtml}</dd></div>`;
}

/**
 * The wallet page of a payable ref: the ref's facts (amount exactly, payTo, network, description,
 * invoice, expiry), the amount field of an open ref, the connect and pay buttons, a polite live region
 * for progress and an alert region for refusals, and the empty receipt section the script fills. Every
 * piece of merchant text is escaped and shown in a `dir="auto"` element; the script reads the ref from
 * `data-` attributes, never from inline script.
 *
 * @param view - A payable view ({@link loadPayPageView}).
 * @param options - The assets and the transaction link.
 * @returns The HTML document.
 * @example
 * ```ts
 * import { loadPayPageView, payPageAssets, renderPayPage } from '@tollgate/core/gateway';
 * const view = await loadPayPageView(deps, refId, nowSeconds);
 * if (view.kind === 'payable') return renderPayPage(view, { assets: payPageAssets() });
 * ```
 */
export function renderPayPage(view: Extract<PayPageView, { kind: 'payable' }>, options: PayPageRenderOptions): string {
  const { snapshot, network, refId } = view;
  const { decimals } = network.usdc;
  const amount = snapshot.amount === undefined ? undefined : formatTokenAmount(snapshot.amount, decimals);
  const label = networkLabel(network);
  const link = options.transactionLink;
  const data = {
    ref: refId,
    'pay-to': snapshot.payTo,
    receive: `../receive/${snapshot.payTo}?ref=${refId}${view.refundOf === undefined ? '' : `&refundOf=${encodeURIComponent(view.refundOf)}`}`,
    'chain-id': String(network.chainId),
    'network-label': label,
    decimals: String(decimals),
    ...(snapshot.amount === undefined ? {} : { amount: snapshot.amount }),
    ...(link === undefined ? {} : { 'tx-link': link.template, 'tx-link-text': link.text }),
  };
  const attributes = Object.entries(data)
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  const amountField = [
    '<label for="amount">Amount in USDC</label>',
    '<input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" spellcheck="false" required aria-describedby="amount-hint amount-error">',
    `<p id="amount-hint" class="hint">Up to ${decimals} decimal places, for example 12.50.</p>`,
    '<p id="amount-error" class="field-error" hidden></p>',
  ].join('\n');
  const body = [
    `<main id="pay"${attributes}>`,
    `<h1>${amount === undefined ? 'Pay in USDC' : `Pay ${escapeHtml(amount)} USDC`}</h1>`,
    ...(snapshot.description === undefined ? [] : [`<p class="description" dir="auto">${escapeHtml(snapshot.description)}</p>`]),
    '<dl>',
    fact('Amount', amount === undefined ? 'You choose it below' : `${escapeHtml(amount)} USDC`),
    fact('To', `<code>${escapeHtml(snapshot.payTo)}</code>`),
    fact('Network', escapeHtml(label)),
    ...(snapshot.invoiceId === undefined ? [] : [fact('Invoice', `<span dir="auto">${escapeHtml(snapshot.invoiceId)}</span>`)]),
    fact('Expires', `<time datetime="${new Date(snapshot.expiresAt * 1000).toISOString()}">${utcTime(snapshot.expiresAt)}</time>`),
    fact('Reference', `<code>${escapeHtml(refId)}</code>`),
    '</dl>',
    '<form id="pay-form" novalidate>',
    ...(amount === undefined ? [amountField] : []),
    '<div class="actions">',
    '<button type="button" id="connect">Connect wallet</button>',
    `<button type="submit" id="pay-button">${amount === undefined ? 'Pay' : `Pay ${escapeHtml(amount)} USDC`}</button>`,
    '</div>',
    '</form>',
    '<p id="account" class="account" hidden></p>',
    '<p id="status" class="status" role="status" aria-live="polite"></p>',
    '<p id="problem" class="problem" role="alert"></p>',
    '<section id="receipt" class="receipt" aria-labelledby="receipt-title" hidden>',
    '<h2 id="receipt-title" tabindex="-1">Payment complete</h2>',
    '<dl id="receipt-facts"></dl>',
    '<p hidden><a id="verify-link" rel="noopener noreferrer" target="_blank"></a></p>',
    '<details><summary>Signed receipt</summary><pre id="signed-receipt"></pre></details>',
    '</section>',
    '<noscript><p class="problem">This page needs JavaScript to talk to your wallet. Turn JavaScript on, or pay with any x402 client.</p></noscript>',
    '</main>',
    '<footer><p>Before you sign, check that the amount and the address above are the ones the merchant gave you. Your wallet signs one USDC transfer of exactly this amount to exactly this address.</p></footer>',
  ].join('\n');
  return document(amount === undefined ? 'Pay in USDC' : `Pay ${amount} USDC`, options.assets, body, true);
}

function refusalText(refusal: PayPageRefusal): { status: number; title: string; text: string } {
  switch (refusal.kind) {
    case 'not_found':
      return { status: 404, title: 'Payment link not found', text: 'There is no payment link at this address. Check the link the merchant gave you.' };
    case 'expired':
      return { status: 410, title: 'This payment link has expired', text: `It expired at ${utcTime(refusal.expiresAt)}. Ask the merchant for a new one. Nothing can be paid here.` };
    case 'revoked':
      return { status: 410, title: 'This payment link was cancelled', text: 'The merchant cancelled this payment link. Nothing can be paid here.' };
    case 'payto_retired':
      return { status: 410, title: 'This payment link is closed', text: 'The merchant no longer accepts payments at the address of this link. Ask the merchant for a new one.' };
    case 'network_unavailable':
      return { status: 410, title: 'This payment link cannot be paid here', text: 'This payment service no longer serves the network of this link. Ask the merchant for a new one.' };
    case 'rate_limited':
      return { status: 429, title: 'Too many requests', text: `Too many pages were asked for from your address. Wait ${refusal.retryAfterSeconds} seconds, then reload.` };
  }
}

/**
 * The page of a ref that cannot be paid, or of a refused request: 404 for an unknown ref, 410 (Gone)
 * for an expired or revoked ref, a retired payTo or a network no longer served (it will not come back),
 * 429 over the rate limit. A heading and a sentence, no script.
 *
 * @param refusal - Why.
 * @param assets - The stylesheet to link.
 * @returns The status and the HTML document.
 * @example
 * ```ts
 * import { payPageAssets, renderRefusalPage } from '@tollgate/core/gateway';
 * const { status, html } = renderRefusalPage({ kind: 'revoked' }, payPageAssets()); // status 410
 * ```
 */
export function renderRefusalPage(refusal: PayPageRefusal, assets: PayPageAssets): { status: number; html: string } {
  const { status, title, text } = refusalText(refusal);
  const body = `<main id="refused" data-reason="${refusal.kind}">\n<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n</main>`;
  return { status, html: document(title, assets, body, false) };
}
