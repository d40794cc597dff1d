/**
 * License validate benchmark (`npm run bench -- license`): requests per second of `POST /v1/validate`
 * against a bare Express route in the same run, on embedded PGlite and (with BENCH_DATABASE_URL) on a
 * PostgreSQL server, plus p50/p99 latency at one connection for each. Target from the client-protocol
 * issue: validate on PostgreSQL ≥ 0.4× bare Express (the CBOR decode + native Ed25519 sign floor is
 * about 0.5× before any database work).
 *
 * Process layout as in `gateway.bench.ts`: this process is the load generator and the devices (it signs
 * the requests); the servers run in a child (`license/validate-servers.ts`), so neither shares the
 * other's event loop. Per engine it creates a policy (1 seat) and BENCH_DEVICES licenses through the
 * Admin API, activates one device per license over `/v1/activate`, and checks that a validate answers a
 * signed ValidationTicket that verifies against the server's keyset. Every validate needs a fresh nonce
 * and proof, so before each timed slice it signs a pool of requests (round-robin over the devices) that
 * the slice spends; the bare route gets the same bodies. The servers' rate limits are raised (see
 * validate-servers.ts) so they never refuse the load generator.
 *
 * Where the CPU goes (Linux only, from /proc): per case, the CPU milliseconds per request of this process
 * (the load generator), of the servers' child process, and of the PostgreSQL backends connected to the
 * bench database (when the server runs on this host), over the 16-connection slices. On a shared machine
 * the rate is bounded by their sum: two cores give at most 2000 / (sum) requests per second.
 *
 * Interleaved rounds, same-run ratios with the range of the per-round values; it asserts nothing.
 * Environment: BENCH_ROUNDS (default 5), BENCH_SLICE_MS per case and round (default 3000, also the
 * latency slices), BENCH_CONCURRENCY (default 16), BENCH_DEVICES (default 16), BENCH_PROF=1, and
 * BENCH_DATABASE_URL for the PostgreSQL case (any database URL of the server; the bench uses the database
 * `tollgate_bench_license` there, created when missing, e.g. by hand:
 *   psql postgres://postgres@127.0.0.1:5432/postgres -c 'CREATE DATABASE tollgate_bench_license'
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- license
 */
import { hexDecode, type Signer } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import {
  licenseProtocolHeader,
  signDeviceRequest,
  verifyArtifact,
  verifyKeyset,
  type ClientInfo,
  type UnsignedDeviceRequest,
} from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import { readdirSync, readFileSync } from 'node:fs';
import { startBenchChild } from './gateway/child-process';
import { percentile, rotating, runLoad } from './gateway/request-load';
import type { LicenseTarget, ValidateTargets } from './license/validate-servers';
import { median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 3_000);
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const deviceCount = Number(process.env['BENCH_DEVICES'] ?? 16);

const clientInfo: ClientInfo = { appVersion: '1.0.0', sdkVersion: '0.1.0', os: 'linux', arch: 'x64' };
const cborHeaders = { [licenseProtocolHeader]: '1', 'content-type': 'application/cbor' };
const now = () => Math.floor(Date.now() / 1000);

interface ActiveDevice {
  signer: Signer;
  fingerprint: Uint8Array;
  licenseId: Uint8Array;
  machineId: Uint8Array;
}

interface Engine {
  url: string;
  productId: string;
  devices: ActiveDevice[];
}

async function admin(target: LicenseTarget, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${target.url}/v1/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', 'idempotency-key': `bench-${crypto.randomUUID()}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /v1/admin${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function postCbor(url: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Uint8Array }> {
  const response = await fetch(url, { method: 'POST', headers: { ...cborHeaders, ...headers }, body: body as BodyInit });
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** A policy, `deviceCount` licenses and one activated device per license, through the public routes. */
async function prepare(target: LicenseTarget): Promise<Engine> {
  const policy = (await admin(target, '/policies', { product_id: target.productId, name: 'Bench', seats: 1 }))['policy'] as { id: string };
  const { licenses } = (await admin(target, '/licenses', { policy_id: policy.id, count: deviceCount })) as { licenses: { key: string }[] };
  const keysetBytes = new Uint8Array(await (await fetch(`${target.url}/v1/keys`, { headers: cborHeaders })).arrayBuffer());
  const keys = verifyKeyset(keysetBytes, target.pinnedRoots.map(hexDecode), now());
  const devices: ActiveDevice[] = [];
  for (const license of licenses) {
    const signer = createNodeEd25519Signer({ privateKey: randomBytes(32), kid: 'device' });
    const fingerprint = randomBytes(32);
    const request: UnsignedDeviceRequest<'activation-request'> = {
      protoVersion: 1,
      productId: target.productId,
      credential: { licenseKey: license.key },
      fingerprint,
      devicePublicKey: signer.publicKey,
      deviceKemKey: randomBytes(32),
      nonce: randomBytes(32),
      clientTime: now(),
      clientInfo,
    };
    const answer = await postCbor(`${target.url}/v1/activate`, await signDeviceRequest('activation-request', request, signer), { 'idempotency-key': `bench-${crypto.randomUUID()}` });
    if (answer.status !== 200) throw new Error(`activation answered ${answer.status}`);
    const credential = verifyArtifact(answer.bytes, 'machine-credential', { keys, productId: target.productId, now: now() }).payload;
    devices.push({ signer, fingerprint, licenseId: credential.licenseId, machineId: credential.machineId });
  }
  const engine: Engine = { url: `${target.url}/v1/validate`, productId: target.productId, devices };
  const [probe] = await signPool(engine, 1);
  const answer = await postCbor(engine.url, probe!);
  if (answer.status !== 200) throw new Error(`validate answered ${answer.status}`);
  // Throws unless the answer is a ValidationTicket (not a kill order) that verifies against the keyset.
  verifyArtifact(answer.bytes, 'validation-ticket', { keys, productId: target.productId, now: now() });
  return engine;
}

/** `count` signed validate requests, each with a fresh nonce, round-robin over the engine's devices. */
async function signPool(engine: Engine, count: number): Promise<Uint8Array[]> {
  const pool: Uint8Array[] = [];
  for (let index = 0; index < count; index += 1) {
    const device = engine.devices[index % engine.devices.length]!;
    const request: UnsignedDeviceRequest<'validate-request'> = {
      protoVersion: 1,
      productId: engine.productId,
      licenseId: device.licenseId,
      machineId: device.machineId,
      fingerprint: device.fingerprint,
      nonce: randomBytes(32),
      clientTime: now(),
      knownRevocationEpoch: 0,
      knownSecurityFloor: 0,
      clientInfo,
    };
    pool.push(await signDeviceRequest('validate-request', request, device.signer));
  }
  return pool;
}

/** Spends `pool` in order; `undefined` once it is empty. */
function spending(pool: Uint8Array[]): () => Uint8Array | undefined {
  let index = 0;
  return () => pool[index++];
}

/** CPU milliseconds of a process so far (utime + stime of /proc/<pid>/stat), or `undefined` when unreadable. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name: state is field 3, ppid 4, utime 14, stime 15 (clock ticks, 100 a second on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** The pids of this process's children (the servers' child), from /proc. */
function childPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/** CPU use per process group, in ms so far: this process, the servers' child, PostgreSQL backends by pid. */
interface CpuSnapshot {
  loadGenerator: number;
  servers: number;
  backends: Map<number, number>;
}

/** Reads a {@link CpuSnapshot}; the backends are those `backendPids` lists (empty without PostgreSQL). */
async function cpuSnapshot(serverPids: readonly number[], backendPids: () => Promise<number[]>): Promise<CpuSnapshot> {
  const usage = process.cpuUsage();
  const backends = new Map<number, number>();
  for (const pid of await backendPids()) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) backends.set(pid, ms);
  }
  return { loadGenerator: (usage.user + usage.system) / 1000, servers: serverPids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0), backends };
}

/** CPU milliseconds spent between two snapshots; a backend that appeared in between counts from its start. */
function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): { loadGenerator: number; servers: number; backends: number } {
  let backends = 0;
  for (const [pid, ms] of after.backends) backends += ms - (before.backends.get(pid) ?? 0);
  return { loadGenerator: after.loadGenerator - before.loadGenerator, servers: after.servers - before.servers, backends };
}

function rangeOf(values: readonly number[], digits: number): string {
  return `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
}

/** Lists the pids of the PostgreSQL backends connected to the bench database (none without BENCH_DATABASE_URL). */
async function postgresBackendPids(): Promise<{ list: () => Promise<number[]>; close: () => Promise<void> }> {
  const serverUrl = process.env['BENCH_DATABASE_URL'];
  if (serverUrl === undefined || serverUrl === '') return { list: async () => [], close: async () => {} };
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  return {
    // The name validate-servers.ts gives the bench database; this client's own backend is another database's.
    list: async () => (await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = 'tollgate_bench_license'")).rows.map((row) => row.pid),
    close: () => client.end(),
  };
}

export default async function bench(): Promise<void> {
  const child = await startBenchChild<ValidateTargets>('bench/license/validate-servers.ts', '.tollgate/build/bench/license-validate-servers.mjs', {});
  try {
    const { targets } = child;
    const engines: Record<string, Engine> = {};
    for (const [name, target] of Object.entries(targets.servers)) engines[name] = await prepare(target);
    const bareBodies = await signPool(Object.values(engines)[0]!, 64);
    const names = ['bare', ...Object.keys(engines)];
    // Requests per second seen so far per case and connection count, to size each slice's pool of one-use requests.
    const expected = new Map<string, number>();
    let exhaustedSlices = 0;

    const serverPids = childPids();
    const backendPids = await postgresBackendPids();
    const cpu = new Map<string, { loadGenerator: number; servers: number; backends: number; requests: number }>();
    const measureCpu = async (name: string, durationMs: number, connections: number) => {
      const before = await cpuSnapshot(serverPids, backendPids.list);
      const result = await measure(name, durationMs, connections);
      const spent = cpuSpent(before, await cpuSnapshot(serverPids, backendPids.list));
      const total = cpu.get(name) ?? { loadGenerator: 0, servers: 0, backends: 0, requests: 0 };
      cpu.set(name, { loadGenerator: total.loadGenerator + spent.loadGenerator, servers: total.servers + spent.servers, backends: total.backends + spent.backends, requests: total.requests + result.completed });
      return result;
    };
    const measure = async (name: string, durationMs: number, connections: number) => {
      const common = { method: 'POST' as const, headers: cborHeaders, concurrency: connections, durationMs, expectStatus: 200, latencies: connections === 1 };
      if (name === 'bare') return runLoad({ ...common, url: targets.bareUrl, nextBody: rotating(bareBodies) });
      const engine = engines[name]!;
      const key = `${name}@${connections}`;
      const pool = await signPool(engine, Math.ceil(((expected.get(key) ?? 2_000) * durationMs * 1.5) / 1000) + 200);
      const result = await runLoad({ ...common, url: engine.url, nextBody: spending(pool) });
      if (result.exhausted) exhaustedSlices += 1;
      // The highest rate seen so far sizes the next pool.
      if (!result.exhausted || !expected.has(key)) expected.set(key, Math.max(result.perSecond, expected.get(key) ?? 0));
      return result;
    };
    // Warm-up (JIT, keep-alive sockets, prepared statements) and a first rate for the pool sizes.
    for (const name of names) await measure(name, 500, concurrency);
    for (const name of names) await measure(name, 300, 1);

    process.stdout.write(
      `\nLicense validate: ${rounds} interleaved rounds, ${sliceMs} ms per case, ${concurrency} concurrent connections (latency: 1 connection); ` +
        `${deviceCount} devices on ${deviceCount} licenses per engine; engines: ${Object.keys(engines).join(', ')}\n`,
    );
    const rps: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const p50: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const p99: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) rps[name]!.push((await measureCpu(name, sliceMs, concurrency)).perSecond);
      for (const name of order) {
        const { latenciesMs } = await measure(name, sliceMs, 1);
        p50[name]!.push(percentile(latenciesMs, 50));
        p99[name]!.push(percentile(latenciesMs, 99));
      }
    }

    for (const name of names) {
      process.stdout.write(`  ${name.padEnd(8)} median ${median(rps[name]!).toFixed(1).padStart(9)} req/s   rounds: ${rps[name]!.map((v) => v.toFixed(1)).join(', ')}\n`);
    }
    if (serverPids.length > 0) {
      process.stdout.write(`\nCPU per request at ${concurrency} connections (ms; load generator + servers' process + PostgreSQL backends of the bench database):\n`);
      for (const name of names) {
        const used = cpu.get(name);
        if (used === undefined || used.requests === 0) continue;
        const per = (ms: number) => (ms / used.requests).toFixed(3);
        const sum = (used.loadGenerator + used.servers + used.backends) / used.requests;
        process.stdout.write(`  ${name.padEnd(8)} ${per(used.loadGenerator)} + ${per(used.servers)} + ${per(used.backends)} = ${sum.toFixed(3)} ms  (2 cores: at most ${(2000 / sum).toFixed(0)} req/s)\n`);
      }
    }
    await backendPids.close();
    process.stdout.write('\nLatency at 1 connection (median of the per-round percentiles; range over rounds):\n');
    for (const name of names) {
      process.stdout.write(
        `  ${name.padEnd(8)} p50 ${median(p50[name]!).toFixed(3).padStart(7)} ms (${rangeOf(p50[name]!, 3)})   p99 ${median(p99[name]!).toFixed(3).padStart(7)} ms (${rangeOf(p99[name]!, 3)})\n`,
      );
    }
    process.stdout.write('\nRatios (same run; ratio of medians, and the range of the per-round ratios):\n');
    for (const name of Object.keys(engines)) {
      const perRound = rps[name]!.map((value, round) => value / rps['bare']![round]!);
      const label = `/v1/validate ${name === 'pg' ? 'PostgreSQL' : 'PGlite'} / bare Express`;
      process.stdout.write(`  ${label.padEnd(40)} ${(median(rps[name]!) / median(rps['bare']!)).toFixed(2)}x   (rounds ${rangeOf(perRound, 2)}; target ≥ 0.40x on PostgreSQL)\n`);
    }
    if (rps['pg'] !== undefined) {
      const perRound = rps['pg'].map((value, round) => value / rps['pglite']![round]!);
      process.stdout.write(`  ${'/v1/validate PostgreSQL / PGlite'.padEnd(40)} ${(median(rps['pg']) / median(rps['pglite']!)).toFixed(2)}x   (rounds ${rangeOf(perRound, 2)})\n`);
    } else {
      process.stdout.write('  (no PostgreSQL case: set BENCH_DATABASE_URL to add it)\n');
    }
    if (exhaustedSlices > 0) process.stdout.write(`  note: ${exhaustedSlices} slice(s) spent their pool of signed requests early; their rate is over the shorter time\n`);
    process.stdout.write(
      '\nWhat differs per request: bare Express reads the CBOR body (express.raw) and sends a fixed 2-byte CBOR map.\n' +
        '/v1/validate checks X-LS-Proto and the body bounds, decodes the canonical CBOR request, verifies the device\'s\n' +
        'Ed25519 proof, counts the request against the per-address and per-license budgets, spends the nonce and reads\n' +
        'the license, machine, policy and release state in the database, then builds and signs the ValidationTicket\n' +
        '(COSE_Sign1, native Ed25519) with the current epoch key.\n',
    );
  } finally {
    await child.stop();
  }
}
