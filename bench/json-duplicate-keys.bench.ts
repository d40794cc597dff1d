/**
 * Duplicate-key check benchmark (`npm run bench -- json`): `JSON.parse` alone against
 * `parseJsonWithUniqueKeys` (parse + duplicate-key check) on a typical `PAYMENT-SIGNATURE` payload and on
 * a 256 KiB body (the largest JSON body a route accepts), plus the refusal path on a 256 KiB body whose
 * last object repeats a key. Interleaved rounds, same-run ratios only; it asserts nothing.
 */
import { parseJsonWithUniqueKeys } from '@tollgate/core';
import { formatOps, interleaved, median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 500);

const hex = (length: number, seed: number) => Array.from({ length }, (_, index) => ((index * 7 + seed) % 16).toString(16)).join('');

/** A `PaymentPayload` as official x402 v2 clients send it, with a payment identifier and an echoed signed offer. */
function paymentSignaturePayload(): string {
  const accepted = {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: '10000',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
    maxTimeoutSeconds: 300,
    extra: { name: 'USD Coin', version: '2' },
  };
  return JSON.stringify({
    x402Version: 2,
    resource: { url: 'https://pay.example.com/receive/0x209693Bc6afc0C5328bA36FaF03C514EF312287C?ref=ref_01J9ZQ4K8W', description: 'Invoice 2024-118', mimeType: 'application/json' },
    accepted,
    payload: {
      signature: `0x${hex(130, 3)}`,
      authorization: { from: `0x${hex(40, 5)}`, to: accepted.payTo, value: '10000', validAfter: '1718000000', validBefore: '1718000600', nonce: `0x${hex(64, 9)}` },
    },
    extensions: {
      'payment-identifier': { info: { required: false, id: 'pay_0123456789abcdef0123456789abcdef' } },
      'offer-receipt': { info: { offers: [{ format: 'eip712', payload: { ...accepted, resourceUrl: 'https://pay.example.com/r/ref_01J9ZQ4K8W', validUntil: 1718000600 }, signature: `0x${hex(130, 1)}` }] } },
    },
  });
}

/** An array of small records, about `bytes` long, like a bulk Admin request. */
function largeBody(bytes: number, repeatLastKey: boolean): string {
  const records: string[] = [];
  let length = 2;
  for (let index = 0; length < bytes - 200; index += 1) {
    const record = JSON.stringify({ id: `lic_${index}`, product: 'prod_desktop', seats: index % 7, email: `user${index}@example.com`, tags: ['pro', 'eu'], meta: { note: 'a "quoted" note, with {braces}' } });
    records.push(record);
    length += record.length + 1;
  }
  if (repeatLastKey) records.push('{"id":"lic_last","seats":1,"seats":2}');
  return `[${records.join(',')}]`;
}

/** One operation = `times` calls, so the harness's per-call `await` stays out of the figure. */
const batch = (times: number, run: () => unknown) => () => {
  for (let index = 0; index < times; index += 1) run();
};

export default async function bench(): Promise<void> {
  const payload = paymentSignaturePayload();
  const large = largeBody(256 * 1024, false);
  const largeDuplicate = largeBody(256 * 1024, true);
  if (!parseJsonWithUniqueKeys(payload).ok || !parseJsonWithUniqueKeys(large).ok || parseJsonWithUniqueKeys(largeDuplicate).ok) {
    throw new Error('benchmark inputs do not have the intended verdicts');
  }
  const perBatch = 100;
  process.stdout.write(`\nJSON duplicate-key check: payload ${payload.length} B (batches of ${perBatch}), body ${large.length} B; ${rounds} interleaved rounds of ${sliceMs} ms\n`);
  const results = await interleaved(
    {
      'payload JSON.parse': batch(perBatch, () => JSON.parse(payload)),
      'payload parse + check': batch(perBatch, () => parseJsonWithUniqueKeys(payload)),
      '256 KiB JSON.parse': () => JSON.parse(large),
      '256 KiB parse + check': () => parseJsonWithUniqueKeys(large),
      '256 KiB refusal (last key)': () => parseJsonWithUniqueKeys(largeDuplicate),
    },
    { rounds, sliceMs },
  );
  const medians = Object.fromEntries(Object.entries(results).map(([name, values]) => [name, median(values)]));
  const microseconds = (name: string, per: number) => (1e6 / ((medians[name] as number) * per)).toFixed(1);
  for (const name of Object.keys(results)) {
    const per = name.startsWith('payload') ? perBatch : 1;
    process.stdout.write(`  ${name.padEnd(28)} ${microseconds(name, per).padStart(8)} µs/op   median ${formatOps((medians[name] as number) * per).padStart(16)}\n`);
  }
  const overhead = (checked: string, plain: string) => `${(((medians[plain] as number) / (medians[checked] as number) - 1) * 100).toFixed(1)} %`;
  process.stdout.write(`  check overhead over JSON.parse: payload ${overhead('payload parse + check', 'payload JSON.parse')}, 256 KiB ${overhead('256 KiB parse + check', '256 KiB JSON.parse')}\n`);
  process.stdout.write(`  refusal (exact scan) vs JSON.parse on 256 KiB: ${((medians['256 KiB JSON.parse'] as number) / (medians['256 KiB refusal (last key)'] as number)).toFixed(2)}x the time\n`);
}
