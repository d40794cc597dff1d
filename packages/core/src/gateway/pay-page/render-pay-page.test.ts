import { describe, expect, it } from 'vitest';
import { createNetworkRegistry } from '../networks';
import type { RefSnapshot } from '../refs/ref-service';
import { escapeHtml } from './html';
import { payPageAssets } from './pay-assets';
import type { PayPageView } from './pay-page-view';
import { networkLabel, renderPayPage, renderRefusalPage, type PayPageRefusal } from './render-pay-page';

const networks = createNetworkRegistry();
const payTo = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const refId = '00112233445566778899aabbccddeeff';
const assets = payPageAssets();

function view(snapshot: Partial<RefSnapshot> = {}, network = 'base'): Extract<PayPageView, { kind: 'payable' }> {
  return {
    kind: 'payable',
    refId,
    network: networks.require(network),
    snapshot: { v: 2, scheme: 'exact', network, payTo, asset: 'USDC', resource: 'https://pay.example.com/r', mimeType: 'application/json', expiresAt: 1_772_370_000, ...snapshot },
  };
}

/** Every start tag of the document, to check attributes without an HTML parser. */
const tags = (html: string) => [...html.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/g)].map((match) => ({ name: match[1], attributes: match[2] ?? '' }));

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or a quoted attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
    expect(escapeHtml('Café 😀 \u05e2\u05d1')).toBe('Café 😀 \u05e2\u05d1');
  });
});

describe('renderPayPage', () => {
  it('shows a fixed ref: exact amount, payTo, network, description as text, invoice and expiry', () => {
    const html = renderPayPage(view({ amount: '1234500000', description: 'Line one\n<b>bold</b> & "quoted"', invoiceId: 'INV-7' }), { assets });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<title>Pay 1,234.50 USDC</title>');
    expect(html).toContain('<h1>Pay 1,234.50 USDC</h1>');
    expect(html).toContain('<p class="description" dir="auto">Line one\n&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;</p>');
    expect(html).toContain(`<dd><code>${payTo}</code></dd>`);
    expect(html).toContain('<dd>Base (chain id 8453)</dd>');
    expect(html).toContain('<span dir="auto">INV-7</span>');
    expect(html).toContain('<time datetime="2026-03-01T13:00:00.000Z">2026-03-01 13:00 UTC</time>');
    expect(html).toContain(`data-receive="../receive/${payTo}?ref=${refId}"`);
    expect(html).toContain('data-amount="1234500000"');
    expect(html).toContain('data-chain-id="8453"');
    expect(html).not.toContain('id="amount"');
  });

  it('gives an open ref a labelled amount field described by its hint and error', () => {
    const html = renderPayPage(view(), { assets });
    expect(html).toContain('<h1>Pay in USDC</h1>');
    expect(html).toContain('<label for="amount">Amount in USDC</label>');
    const input = tags(html).find((tag) => tag.name === 'input');
    expect(input?.attributes).toContain('id="amount"');
    expect(input?.attributes).toContain('aria-describedby="amount-hint amount-error"');
    expect(input?.attributes).toContain('inputmode="decimal"');
    expect(html).toContain('<p id="amount-hint" class="hint">Up to 6 decimal places, for example 12.50.</p>');
    expect(html).not.toContain('data-amount=');
  });

  it('has live regions, a focusable receipt heading and no inline script, style or handler', () => {
    const html = renderPayPage(view({ amount: '1' }), { assets, transactionLink: { template: 'https://basescan.org/tx/{tx}', text: 'View it "there"' } });
    expect(html).toContain('<p id="status" class="status" role="status" aria-live="polite"></p>');
    expect(html).toContain('<p id="problem" class="problem" role="alert"></p>');
    expect(html).toContain('<h2 id="receipt-title" tabindex="-1">Payment complete</h2>');
    expect(html).toContain('data-tx-link-text="View it &quot;there&quot;"');
    const all = tags(html);
    for (const tag of all) expect(tag.attributes, tag.name).not.toMatch(/\s(on[a-z]+|style)=/);
    const scripts = all.filter((tag) => tag.name === 'script');
    expect(scripts).toHaveLength(1);
    expect(scripts[0]?.attributes).toBe(` src="assets/${assets.script.fileName}" integrity="${assets.script.integrity}" defer`);
    expect(all.filter((tag) => tag.name === 'style')).toEqual([]);
  });

  it('cannot be broken out of by merchant text in any field', () => {
    const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
    const html = renderPayPage(view({ amount: '1', description: evil, invoiceId: evil }), { assets });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(tags(html).filter((tag) => tag.name === 'script')).toHaveLength(1);
  });

  it('names networks for people', () => {
    expect(networkLabel(networks.require('base-sepolia'))).toBe('Base Sepolia (chain id 84532)');
    expect(networkLabel({ name: 'my-chain', chainId: 99 })).toBe('my-chain (chain id 99)');
  });
});

describe('renderRefusalPage', () => {
  const cases: [PayPageRefusal, number, string][] = [
    [{ kind: 'not_found' }, 404, 'Payment link not found'],
    [{ kind: 'expired', expiresAt: 1_772_366_400 }, 410, 'This payment link has expired'],
    [{ kind: 'revoked' }, 410, 'This payment link was cancelled'],
    [{ kind: 'payto_retired' }, 410, 'This payment link is closed'],
    [{ kind: 'network_unavailable', network: 'polygon' }, 410, 'This payment link cannot be paid here'],
    [{ kind: 'rate_limited', retryAfterSeconds: 12 }, 429, 'Too many requests'],
  ];

  it.each(cases)('renders %j with status %i and a heading', (refusal, status, heading) => {
    const page = renderRefusalPage(refusal, assets);
    expect(page.status).toBe(status);
    expect(page.html).toContain(`<h1>${heading}</h1>`);
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).not.toContain('<script');
  });

  it('says when an expired link expired', () => {
    expect(renderRefusalPage({ kind: 'expired', expiresAt: 1_772_366_400 }, assets).html).toContain('It expired at 2026-03-01 12:00 UTC.');
  });
});
