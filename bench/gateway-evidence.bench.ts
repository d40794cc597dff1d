/**
 * Chain-evidence benchmark (`npm run bench -- evidence`): requests per second of the gateway's
 * `POST /verify-receipt` and `GET /tx/:txHash` against a bare Express JSON route in the same run
 * (`GET /bare` for `/tx`, `POST /bare` with `express.json()` for `/verify-receipt`).
 *
 * Same process layout as `gateway.bench.ts`: this process is the load generator and paying client; the
 * servers under test run in one child (`gateway/evidence-servers.ts`), the anvil chain and the
 * facilitators in another (`gateway/facilitators.ts`), so every RPC read the gateway makes is a real
 * HTTP round trip to another process.
 *
 * Before measuring it pays the gateway a few times (official `@x402/fetch` client, real settlement on
 * anvil) to get receipts and transaction hashes, mines `GATEWAY_FINALITY_CONFIRMATIONS` blocks so those
 * transactions are final, then pays once more and mines nothing after: that last transaction stays
 * below the finality depth for the whole run. Two cases per route:
 *   - `final`:  the transaction is final, so the observer serves it from its cache of final transactions
 *               and reads only the head (`eth_blockNumber`) for the confirmation count; `/verify-receipt`
 *               also hits its cache of recovered signers;
 *   - `recent`: not final: every request reads the receipt, then the head and the block hash at its
 *               height (three RPC calls in two round trips) — the uncached path.
 * Receipts (Tollgate form) and hashes rotate over the payments of their case.
 *
 * Interleaved rounds, same-run ratios with the range of the per-round values; it asserts nothing.
 * Environment: BENCH_ROUNDS (default 5), BENCH_SLICE_MS per case and round (default 3000),
 * BENCH_CONCURRENCY (default 16), BENCH_PAYMENTS final payments (default 3), BENCH_FINALITY_CONFIRMATIONS
 * (the gateway's GATEWAY_FINALITY_CONFIRMATIONS, default 64 as shipped), BENCH_PROF=1 for CPU profiles.
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { startBenchServers } from './gateway/child-process';
import type { EvidenceTargets } from './gateway/evidence-servers';
import { rotating, runLoad } from './gateway/request-load';
import { median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 3_000);
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const finalPayments = Number(process.env['BENCH_PAYMENTS'] ?? 3);

interface Paid {
  txHash: `0x${string}`;
  receipt: unknown;
  signedReceipt: string;
}

/** Pays the fixed ref once; returns the transaction hash and the Tollgate receipt the settlement carries. */
function payer(targets: EvidenceTargets): () => Promise<Paid> {
  const client = x402Client.fromConfig({
    schemes: [{ network: targets.network, client: new ExactEvmScheme(privateKeyToAccount(targets.payerKey)) }],
    spendControls: { allowedAssets: [{ network: targets.network, asset: targets.usdc }] },
  });
  const pay = wrapFetchWithPayment(fetch, client);
  return async () => {
    const response = await pay(targets.paidUrl);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`payment answered ${response.status}: ${text}`);
    const body = JSON.parse(text) as { transaction: `0x${string}`; extensions: { 'offer-receipt': { receipt: unknown; signedReceipt: string } } };
    const { receipt, signedReceipt } = body.extensions['offer-receipt'];
    return { txHash: body.transaction, receipt, signedReceipt };
  };
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Reads `/tx/:hash` once and checks the transaction is mined, with its confirmations on the expected side of finality. */
async function checkTx(targets: EvidenceTargets, hash: string, final: boolean): Promise<number> {
  const response = await fetch(`${targets.gatewayUrl}/tx/${hash}`);
  const body = (await response.json()) as { status?: string; confirmations?: number };
  const confirmations = body.confirmations ?? -1;
  if (response.status !== 200 || body.status !== 'success' || (confirmations >= targets.finalityConfirmations) !== final) {
    throw new Error(`/tx/${hash} answered ${response.status} ${JSON.stringify(body).slice(0, 300)} (finality at ${targets.finalityConfirmations})`);
  }
  return confirmations;
}

/** Checks once that a receipt verifies (signature, context and chain) before it is measured. */
async function checkReceipt(targets: EvidenceTargets, body: Uint8Array): Promise<void> {
  const response = await fetch(`${targets.gatewayUrl}/verify-receipt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body as BodyInit });
  const answer = (await response.json()) as { verified?: boolean };
  if (response.status !== 200 || answer.verified !== true) throw new Error(`/verify-receipt answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
}

const verifyBody = (paid: Paid) => Buffer.from(JSON.stringify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt, expectedAmount: '10000', minConfirmations: 1 }));

export default async function bench(): Promise<void> {
  const { targets, stop } = await startBenchServers<EvidenceTargets>('bench/gateway/evidence-servers.ts', '.tollgate/build/bench/gateway-evidence-servers.mjs');
  try {
    const pay = payer(targets);
    const finals: Paid[] = [];
    for (let index = 0; index < finalPayments; index += 1) finals.push(await pay());
    await rpc(targets.rpcUrl, 'anvil_mine', [`0x${targets.finalityConfirmations.toString(16)}`]);
    // Mined after the others are final, and nothing is mined after it: it stays short of finality.
    const recent = await pay();
    const finalConfirmations = await checkTx(targets, finals[0]!.txHash, true);
    const recentConfirmations = await checkTx(targets, recent.txHash, false);
    const finalBodies = finals.map(verifyBody);
    const recentBodies = [verifyBody(recent)];
    for (const body of [...finalBodies, ...recentBodies]) await checkReceipt(targets, body);

    const json = { 'content-type': 'application/json' };
    const txPaths = (paid: Paid[]) => {
      const paths = paid.map((entry) => `/tx/${entry.txHash}`);
      let index = 0;
      return () => paths[index++ % paths.length]!;
    };
    const cases: Record<string, (durationMs: number) => Promise<number>> = {
      'bare GET': async (durationMs) => (await runLoad({ url: targets.bareUrl, method: 'GET', concurrency, durationMs, expectStatus: 200 })).perSecond,
      'tx final': async (durationMs) => (await runLoad({ url: targets.gatewayUrl, nextPath: txPaths(finals), method: 'GET', concurrency, durationMs, expectStatus: 200 })).perSecond,
      'tx recent': async (durationMs) => (await runLoad({ url: targets.gatewayUrl, nextPath: txPaths([recent]), method: 'GET', concurrency, durationMs, expectStatus: 200 })).perSecond,
      'bare POST': async (durationMs) =>
        (await runLoad({ url: targets.bareUrl, method: 'POST', headers: json, nextBody: rotating(finalBodies), concurrency, durationMs, expectStatus: 200 })).perSecond,
      'verify final': async (durationMs) =>
        (await runLoad({ url: `${targets.gatewayUrl}/verify-receipt`, method: 'POST', headers: json, nextBody: rotating(finalBodies), concurrency, durationMs, expectStatus: 200 })).perSecond,
      'verify recent': async (durationMs) =>
        (await runLoad({ url: `${targets.gatewayUrl}/verify-receipt`, method: 'POST', headers: json, nextBody: rotating(recentBodies), concurrency, durationMs, expectStatus: 200 })).perSecond,
    };
    const names = Object.keys(cases);
    // Warm-up: JIT, keep-alive sockets, and the caches of the final case.
    for (const name of names) await cases[name]!(500);

    process.stdout.write(
      `\nGateway evidence: ${rounds} interleaved rounds, ${sliceMs} ms per case, ${concurrency} concurrent connections; ` +
        `finality at ${targets.finalityConfirmations} confirmations (final txs: ${finalConfirmations}+, recent tx: ${recentConfirmations})\n`,
    );
    const results: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) results[name]!.push(await cases[name]!(sliceMs));
    }
    // The recent transaction must still be short of finality, or its case measured the cache.
    await checkTx(targets, recent.txHash, false);

    for (const [name, values] of Object.entries(results)) {
      process.stdout.write(`  ${name.padEnd(14)} median ${median(values).toFixed(1).padStart(9)} req/s   rounds: ${values.map((v) => v.toFixed(1)).join(', ')}\n`);
    }
    process.stdout.write('\nRatios (same run; ratio of medians, and the range of the per-round ratios):\n');
    const line = (label: string, a: string, b: string, note: string) => {
      const as = results[a]!;
      const bs = results[b]!;
      const perRound = as.map((value, round) => value / bs[round]!);
      process.stdout.write(
        `  ${label.padEnd(44)} ${(median(as) / median(bs)).toFixed(2)}x   (rounds ${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}; ${note})\n`,
      );
    };
    line('GET /tx/:txHash final / bare GET', 'tx final', 'bare GET', 'cached: one eth_blockNumber per request');
    line('GET /tx/:txHash recent / bare GET', 'tx recent', 'bare GET', 'uncached: receipt + head + block hash');
    line('POST /verify-receipt final / bare POST', 'verify final', 'bare POST', 'cached tx and signer; one eth_blockNumber');
    line('POST /verify-receipt recent / bare POST', 'verify recent', 'bare POST', 'uncached tx: three RPC reads');
    line('cache effect: /tx final / recent', 'tx final', 'tx recent', 'same route');
    line('cache effect: /verify-receipt final / recent', 'verify final', 'verify recent', 'same route');
    process.stdout.write(
      '\nWhat differs from the bare routes: the gateway validates the input (valibot), applies the per-client rate\n' +
        'limit, reads the chain over HTTP JSON-RPC from anvil in another process (the head at least, on every request:\n' +
        'confirmations are never cached), builds the evidence answer (logs bounded in count and bytes; for receipts the\n' +
        'signature, context and chain field reports) and sends it with its security headers. Bare Express parses the\n' +
        'same JSON body (POST) and answers { ok: true }.\n',
    );
  } finally {
    await stop();
  }
}
