/**
 * Gateway benchmark (`npm run bench -- gateway`): requests per second of the unpaid 402 negotiation on our
 * `/receive` against the official `@x402/express` `paymentMiddleware` on an equivalent route and against a
 * bare Express JSON route (the ceiling), and paid end-to-end payments per second (official `@x402/fetch`
 * client → server → facilitator → anvil, one payer, sequential) for both stacks.
 *
 * Three processes: this one (the load generator and paying client), the servers under test
 * (`gateway/servers.ts`) and the chain with both facilitators (`gateway/facilitators.ts`): a facilitator
 * is another service in every deployment, so it does not share the gateways' event loop.
 *
 * Paid payments are measured for every stack through each of two facilitators on the same chain: ours
 * (the dev stack's self-hosted one) and the one the x402 documentation shows; `ours-trust` is our gateway
 * with `GATEWAY_CONFIRM_TRANSFERS=false`, to price the on-chain confirmation of each settlement. The historical ratio
 * (each stack through its own facilitator) mixes facilitator speed with gateway speed; the
 * `[same facilitator: …]` ratios compare the gateways alone.
 *
 * The cases are interleaved over several rounds in one run, the paid ones payment by payment, and only
 * same-run ratios are reported, each with the range of its per-round values: this machine's absolute
 * figures move 15–30 % between rounds when it is quiet, far more when other work shares its two cores.
 * It asserts nothing.
 *
 * Environment: BENCH_ROUNDS (default 5), BENCH_SLICE_MS per case and round (default 3000; the paid
 * cases of a round share their slices),
 * BENCH_CONCURRENCY for negotiation (default 16), BENCH_PROF=1 for CPU profiles of both child processes
 * (in .tollgate/prof), and BENCH_DATABASE_URL to add our gateway on a
 * PostgreSQL server. Give it a database of its own, which the gateways migrate and then keep:
 *   psql postgres://postgres@127.0.0.1:5432/postgres -c 'CREATE DATABASE tollgate_bench'
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/tollgate_bench npm run bench -- gateway
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { startBenchServers } from './gateway/child-process';
import type { BenchTargets } from './gateway/servers';
import { paymentsPerSecond, requestsPerSecond } from './gateway/load';
import { median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 3_000);
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 16);

function payingFetch(targets: BenchTargets) {
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

function report(title: string, results: Record<string, number[]>, unit: string): void {
  process.stdout.write(`\n${title}\n`);
  for (const [name, values] of Object.entries(results)) {
    process.stdout.write(`  ${name.padEnd(18)} median ${median(values).toFixed(1).padStart(9)} ${unit}   rounds: ${values.map((v) => v.toFixed(1)).join(', ')}\n`);
  }
}

/** Each round runs the negotiation cases forward or backward in turn, so no case always follows the same other one. */
async function interleaved(names: readonly string[], round: number, measure: (name: string) => Promise<number>, into: Record<string, number[]>): Promise<void> {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) into[name]!.push(await measure(name));
}

/**
 * One round of the paid cases, payment by payment in turn (A, B, C, C, B, A, …) for `durationMs` in all
 * and at least `minimum` payments each: neighbouring payments of two cases run milliseconds apart, so a
 * busy machine slows them alike. Returns each case's payments per second of its own time (one payer,
 * sequential: the inverse of its mean latency).
 */
async function paidRound(names: readonly string[], pay: (name: string) => Promise<void>, durationMs: number, minimum: number): Promise<Record<string, number>> {
  const spentMs: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  const deadline = performance.now() + durationMs;
  let cycle = 0;
  for (; cycle < minimum || performance.now() < deadline; cycle += 1) {
    for (const name of cycle % 2 === 0 ? names : [...names].reverse()) {
      const started = performance.now();
      await pay(name);
      spentMs[name]! += performance.now() - started;
    }
  }
  return Object.fromEntries(names.map((name) => [name, (cycle * 1000) / spentMs[name]!]));
}

/**
 * Prints `a / b` as the ratio of the two medians, with the range of the per-round ratios beside it: the
 * cases of one round ran seconds apart, so that range shows how much the machine moved during the run.
 */
function printRatios(negotiation: Record<string, number[]>, paid: Record<string, number[]>): void {
  const line = (label: string, results: Record<string, number[]>, a: string, b: string, note = '') => {
    const as = results[a];
    const bs = results[b];
    if (as === undefined || bs === undefined) return;
    const perRound = as.map((value, round) => value / bs[round]!);
    const range = `rounds ${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}`;
    process.stdout.write(`  ${label.padEnd(56)} ${(median(as) / median(bs)).toFixed(2)}x   (${range}${note === '' ? '' : `; ${note}`})\n`);
  };
  process.stdout.write('\nRatios (same run; ratio of medians, and the range of the per-round ratios):\n');
  line('negotiation ours / official', negotiation, 'ours', 'official', 'target ≥ 1.20x');
  line('negotiation official / bare', negotiation, 'official', 'bare');
  line('negotiation ours / bare', negotiation, 'ours', 'bare');
  line('negotiation ours-pg / official', negotiation, 'ours-pg', 'official', 'ours on a PostgreSQL server');
  line('paid ours / official  [each its own facilitator]', paid, 'ours@ours-fac', 'official@doc-fac', 'target ≥ 1.00x; embedded PGlite');
  line('paid ours / official  [same facilitator: ours]', paid, 'ours@ours-fac', 'official@ours-fac', 'embedded PGlite');
  line('paid ours / official  [same facilitator: documented]', paid, 'ours@doc-fac', 'official@doc-fac', 'embedded PGlite');
  line('paid ours-pg / official  [each its own facilitator]', paid, 'ours-pg@ours-fac', 'official@doc-fac', 'PostgreSQL server');
  line('paid ours-pg / official  [same facilitator: ours]', paid, 'ours-pg@ours-fac', 'official@ours-fac', 'PostgreSQL server');
  line('paid ours-pg / official  [same facilitator: documented]', paid, 'ours-pg@doc-fac', 'official@doc-fac', 'PostgreSQL server');
  line('confirmation cost: ours / ours-trust  [facilitator: ours]', paid, 'ours@ours-fac', 'ours-trust@ours-fac', 'GATEWAY_CONFIRM_TRANSFERS on / off, PGlite');
  line('facilitator ours / documented  [official middleware]', paid, 'official@ours-fac', 'official@doc-fac');
  line('facilitator ours / documented  [our gateway, PGlite]', paid, 'ours@ours-fac', 'ours@doc-fac');
  line('facilitator ours / documented  [our gateway, PostgreSQL]', paid, 'ours-pg@ours-fac', 'ours-pg@doc-fac');
}

export default async function bench(): Promise<void> {
  const { targets, stop } = await startBenchServers<BenchTargets>('bench/gateway/servers.ts', '.tollgate/build/bench/gateway-servers.mjs');
  try {
    const payments = payingFetch(targets);
    const negotiationNames = Object.keys(targets.negotiation);
    const paidNames = Object.keys(targets.paid);
    const negotiate = (name: string, durationMs: number) =>
      requestsPerSecond(targets.negotiation[name]!, { concurrency, durationMs, expectStatus: name === 'bare' ? 200 : 402 });
    // Warm up every path (JIT, caches, keep-alive sockets, the first settlement of each stack).
    for (const name of negotiationNames) await negotiate(name, 500);
    const payOnce = Object.fromEntries(paidNames.map((name) => [name, payments(targets.paid[name]!)]));
    for (const name of paidNames) await paymentsPerSecond(payOnce[name]!, { durationMs: 0, minimum: 3 });

    process.stdout.write(
      `\nGateway: ${rounds} interleaved rounds, ${sliceMs} ms per case (paid cases take turns payment by payment), ${concurrency} concurrent connections for negotiation\n`,
    );
    const negotiation: Record<string, number[]> = Object.fromEntries(negotiationNames.map((name) => [name, []]));
    const paid: Record<string, number[]> = Object.fromEntries(paidNames.map((name) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      await interleaved(negotiationNames, round, (name) => negotiate(name, sliceMs), negotiation);
      const perCase = await paidRound(paidNames, (name) => payOnce[name]!(), sliceMs * paidNames.length, 5);
      for (const name of paidNames) paid[name]!.push(perCase[name]!);
    }
    report('402 negotiation (unpaid GET)', negotiation, 'req/s');
    report(
      'Paid end to end (client → server → facilitator → anvil, sequential, one payer); <stack>@<facilitator>,\n' +
        'ours-fac = the dev stack\'s self-hosted facilitator, doc-fac = the one the x402 documentation shows',
      paid,
      'payments/s',
    );
    printRatios(negotiation, paid);
    process.stdout.write(
      '\nWhat differs between the stacks, per payment, whatever the facilitator. Both call the facilitator\'s\n' +
        '/verify then /settle. Ours also does what the official middleware does not: its own EIP-3009 signature\n' +
        'recovery and context checks before any facilitator call; three durable database writes (the exactly-once\n' +
        'claim with its "settle started" mark, written while /verify runs, the transaction hash, and the settled\n' +
        'record with its notification job in one statement); two secp256k1 receipt signatures (Tollgate receipt +\n' +
        'x402 offer-receipt); and, unless GATEWAY_CONFIRM_TRANSFERS=false (ours-trust), one eth_getTransactionReceipt\n' +
        'confirming the transfer before the receipt is signed (overlapped with the hash write and the signatures).\n' +
        'The official middleware keeps nothing, checks no signature itself, signs nothing and trusts the facilitator.\n',
    );
  } finally {
    await stop();
  }
}
