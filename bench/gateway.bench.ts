/**
 * Gateway benchmark (`npm run bench -- gateway`): requests per second of the unpaid 402 negotiation on our
 * `/receive` against the official `@x402/express` `paymentMiddleware` on an equivalent route and against a
 * bare Express JSON route (the ceiling), and paid end-to-end payments per second (official `@x402/fetch`
 * client → server → self-hosted facilitator → anvil, one payer, sequential) for both stacks. The cases are
 * interleaved over several rounds in one run and only same-run ratios are reported: this machine's
 * absolute figures move 15–30 % between rounds. It asserts nothing.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { paymentsPerSecond, requestsPerSecond } from './gateway/load';
import { median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 3_000);
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 16);

interface Targets {
  bare: string;
  official: string;
  ours: string;
  'ours-pg'?: string;
  network: `${string}:${string}`;
  usdc: string;
  payerKey: `0x${string}`;
}

async function startServers(): Promise<{ targets: Targets; stop: () => Promise<void> }> {
  // Loaded at run time (not bundled into this file) so it resolves paths from the repository root.
  const { devBuild } = (await import(pathToFileURL(resolve('scripts/dev-build.mjs')).href)) as typeof import('../scripts/dev-build.mjs');
  const bundle = await devBuild('bench/gateway/servers.ts', '.tollgate/build/bench/gateway-servers.mjs');
  const child = spawn(process.execPath, [bundle], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
  return {
    targets: JSON.parse(firstLine) as Targets,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

function payingFetch(targets: Targets) {
  const client = x402Client.fromConfig({
    schemes: [{ network: targets.network, client: new ExactEvmScheme(privateKeyToAccount(targets.payerKey)) }],
    spendControls: { allowedAssets: [{ network: targets.network, asset: targets.usdc }] },
  });
  const pay = wrapFetchWithPayment(fetch, client);
  return (url: string) => async () => {
    const response = await pay(url);
    if (response.status !== 200) throw new Error(`${url}: paid request answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
}

function report(title: string, results: Record<string, number[]>, unit: string): Record<string, number> {
  process.stdout.write(`\n${title}\n`);
  const medians: Record<string, number> = {};
  for (const [name, values] of Object.entries(results)) {
    medians[name] = median(values);
    process.stdout.write(`  ${name.padEnd(10)} median ${medians[name]!.toFixed(1).padStart(9)} ${unit}   rounds: ${values.map((v) => v.toFixed(1)).join(', ')}\n`);
  }
  return medians;
}

export default async function bench(): Promise<void> {
  const { targets, stop } = await startServers();
  try {
    const payments = payingFetch(targets);
    // Warm up every path (JIT, caches, keep-alive sockets, the first settlement of each stack).
    await requestsPerSecond(targets.bare, { concurrency, durationMs: 500, expectStatus: 200 });
    await requestsPerSecond(targets.official, { concurrency, durationMs: 500, expectStatus: 402 });
    await requestsPerSecond(targets.ours, { concurrency, durationMs: 500, expectStatus: 402 });
    await paymentsPerSecond(payments(targets.official), { durationMs: 0, minimum: 3 });
    await paymentsPerSecond(payments(targets.ours), { durationMs: 0, minimum: 3 });
    const oursPg = targets['ours-pg'];
    if (oursPg !== undefined) {
      await requestsPerSecond(oursPg, { concurrency, durationMs: 500, expectStatus: 402 });
      await paymentsPerSecond(payments(oursPg), { durationMs: 0, minimum: 3 });
    }

    process.stdout.write(`\nGateway: ${rounds} interleaved rounds, ${sliceMs} ms per case, ${concurrency} concurrent connections for negotiation\n`);
    const stacks: ('official' | 'ours' | 'ours-pg')[] = oursPg === undefined ? ['official', 'ours'] : ['official', 'ours', 'ours-pg'];
    const negotiation: Record<string, number[]> = Object.fromEntries(['bare', ...stacks].map((name) => [name, []]));
    const paid: Record<string, number[]> = Object.fromEntries(stacks.map((name) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      // Alternate the order each round so no case always runs right after the same other one.
      const forward = (['bare', ...stacks] as const).slice();
      for (const name of round % 2 === 0 ? forward : forward.reverse()) {
        negotiation[name]!.push(await requestsPerSecond(targets[name]!, { concurrency, durationMs: sliceMs, expectStatus: name === 'bare' ? 200 : 402 }));
      }
      for (const name of round % 2 === 0 ? stacks : [...stacks].reverse()) {
        paid[name]!.push(await paymentsPerSecond(payments(targets[name]!), { durationMs: sliceMs, minimum: 5 }));
      }
    }
    const n = report('402 negotiation (unpaid GET)', negotiation, 'req/s');
    const p = report('Paid end to end (client → server → facilitator → anvil, sequential, one payer)', paid, 'payments/s');
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    process.stdout.write('\nRatios (same run):\n');
    process.stdout.write(`  negotiation ours / official      ${ratio(n['ours']!, n['official']!)}   (target ≥ 1.20x)\n`);
    process.stdout.write(`  negotiation official / bare      ${ratio(n['official']!, n['bare']!)}\n`);
    process.stdout.write(`  negotiation ours / bare          ${ratio(n['ours']!, n['bare']!)}\n`);
    process.stdout.write(`  paid ours / official            ${ratio(p['ours']!, p['official']!)}   (target ≥ 1.00x; ours on embedded PGlite)\n`);
    if (p['ours-pg'] !== undefined) {
      process.stdout.write(`  negotiation ours-pg / official   ${ratio(n['ours-pg']!, n['official']!)}\n`);
      process.stdout.write(`  paid ours-pg / official         ${ratio(p['ours-pg']!, p['official']!)}   (ours on a PostgreSQL server)\n`);
    }
    process.stdout.write(
      '\nOurs does on every payment what the official stack does not: a durable exactly-once claim, a\n' +
        '"settle started" mark and the settled record with its notification (three writes), its own EIP-3009\n' +
        'signature check before any facilitator call, and two signed receipts (Tollgate + x402 offer-receipt).\n',
    );
  } finally {
    await stop();
  }
}
