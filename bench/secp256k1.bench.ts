/**
 * secp256k1 micro benchmark (`npm run bench -- secp256k1`): the gateway's two CPU-bound items per payment,
 * the payer's EIP-3009 signature recovery and the two receipt signatures, per implementation:
 *   - noble: `@noble/curves` 2, pure JavaScript (core's default `nobleSecp256k1`);
 *   - viem: `privateKeyToAccount(key).sign({ hash })`, what the gateway signs with today (viem's noble 1.9);
 *   - libsecp256k1: the optional `secp256k1` package's N-API binding (`loadNativeSecp256k1`);
 *   - tiny-secp256k1: libsecp256k1 compiled to WebAssembly, measured only when installed
 *     (`npm install --no-save tiny-secp256k1`): not a dependency of the project;
 *   - node:crypto: OpenSSL ECDSA, for scale only: it cannot recover a key and signs with a random nonce.
 * It first checks on BENCH_SECP_VECTORS random vectors (default 2000) that every candidate signs
 * byte-identically to noble and recovers the same key, then measures interleaved rounds and prints the
 * median CPU time per operation (steady when other processes share the cores; wall time beside it) and
 * the CPU time per payment (1 recovery + 2 signatures). It asserts nothing.
 */
import { createPrivateKey, randomBytes, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { hexEncode } from '@tollgate/core';
import { evmSignerWithBackend, nobleSecp256k1, recoverDigestSigner, type Secp256k1Backend } from '@tollgate/core/x402';
// From its file, not the package entry: the bench needs only the loader, not the whole server.
import { loadNativeSecp256k1 } from '@tollgate/core/node';
import { median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 400);
const vectorCount = Number(process.env['BENCH_SECP_VECTORS'] ?? 2_000);

/** The part of tiny-secp256k1 2.x measured here. */
interface TinySecp256k1 {
  signRecoverable(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number };
  recover(digest: Uint8Array, signature: Uint8Array, recoveryId: number, compressed: boolean): Uint8Array | null;
}

async function loadTiny(): Promise<Secp256k1Backend | undefined> {
  // A variable specifier: the package is optional and not installed by the project.
  const specifier = 'tiny-secp256k1';
  let tiny: TinySecp256k1;
  try {
    tiny = (await import(specifier)) as TinySecp256k1;
  } catch {
    return undefined;
  }
  return {
    name: 'tiny-secp256k1',
    recoverPublicKey: (digest, signature, recoveryBit) => tiny.recover(digest, signature, recoveryBit, false) ?? undefined,
    sign(digest, privateKey) {
      const { signature, recoveryId } = tiny.signRecoverable(digest, privateKey);
      return { signature, recoveryBit: recoveryId === 1 ? 1 : 0 };
    },
  };
}

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined) => a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;

/** Mismatches of `candidate` against noble: signatures (RFC 6979, low s, recovery bit) and recovered keys. */
function countMismatches(candidate: Secp256k1Backend, vectors: readonly { digest: Uint8Array; key: Uint8Array }[]): { sign: number; recover: number } {
  const mismatches = { sign: 0, recover: 0 };
  for (const { digest, key } of vectors) {
    const expected = nobleSecp256k1.sign(digest, key);
    const actual = candidate.sign(digest, key);
    if (actual.recoveryBit !== expected.recoveryBit || !sameBytes(actual.signature, expected.signature)) mismatches.sign += 1;
    const expectedKey = nobleSecp256k1.recoverPublicKey(digest, expected.signature, expected.recoveryBit);
    if (!sameBytes(candidate.recoverPublicKey(digest, expected.signature, expected.recoveryBit), expectedKey)) mismatches.recover += 1;
  }
  return mismatches;
}

function nodeKeyObject(privateKey: Uint8Array): KeyObject {
  const publicKey = privateKeyToAccount(`0x${hexEncode(privateKey)}`).publicKey;
  const base64url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
  return createPrivateKey({
    key: { kty: 'EC', crv: 'secp256k1', d: Buffer.from(privateKey).toString('base64url'), x: base64url(publicKey.slice(4, 68)), y: base64url(publicKey.slice(68)) },
    format: 'jwk',
  });
}

export default async function bench(): Promise<void> {
  const native = await loadNativeSecp256k1();
  const tiny = await loadTiny();
  const backends = [nobleSecp256k1, ...(native.ok ? [native.backend] : []), ...(tiny ? [tiny] : [])];
  process.stdout.write(`\nlibsecp256k1 (N-API): ${native.ok ? 'loaded' : `not loadable (${native.reason})`}; tiny-secp256k1 (WASM): ${tiny ? 'loaded' : 'not installed'}\n`);

  const vectors = Array.from({ length: vectorCount }, () => ({ digest: new Uint8Array(randomBytes(32)), key: randomPrivateKey() }));
  process.stdout.write(`\nEquivalence with noble over ${vectorCount} random keys and digests (mismatches):\n`);
  for (const backend of backends.slice(1)) {
    const mismatches = countMismatches(backend, vectors);
    process.stdout.write(`  ${backend.name.padEnd(16)} sign ${mismatches.sign}   recover ${mismatches.recover}\n`);
  }

  const { digest, key } = vectors[0]!;
  const keyHex = `0x${hexEncode(key)}` as const;
  const hash = `0x${hexEncode(digest)}` as const;
  const signed = nobleSecp256k1.sign(digest, key);
  const signatureHex = `0x${hexEncode(signed.signature)}${signed.recoveryBit === 1 ? '1c' : '1b'}`;
  const account = privateKeyToAccount(keyHex);
  const nodeKey = nodeKeyObject(key);
  const nodeSignature = nodeSign(null, digest, { key: nodeKey, dsaEncoding: 'ieee-p1363' });

  const operations: Record<string, () => unknown> = {};
  for (const backend of backends) {
    operations[`recover  ${backend.name}`] = () => backend.recoverPublicKey(digest, signed.signature, signed.recoveryBit);
    operations[`sign     ${backend.name}`] = () => backend.sign(digest, key);
  }
  operations['sign     viem account.sign'] = () => account.sign({ hash });
  operations['sign     node:crypto (random k)'] = () => nodeSign(null, digest, { key: nodeKey, dsaEncoding: 'ieee-p1363' });
  operations['verify   node:crypto'] = () => nodeVerify(null, digest, { key: nodeKey, dsaEncoding: 'ieee-p1363' }, nodeSignature);
  // The gateway's own entry points, checks, keccak and hex included.
  operations['recoverDigestSigner  noble'] = () => recoverDigestSigner(digest, signatureHex, nobleSecp256k1);
  if (native.ok) {
    const nativeSigner = evmSignerWithBackend(keyHex, native.backend);
    operations['recoverDigestSigner  libsecp256k1'] = () => recoverDigestSigner(digest, signatureHex, native.backend);
    operations['evmSignerWithBackend libsecp256k1 .sign'] = () => nativeSigner.sign?.({ hash });
  }

  const results = cpuTimeRounds(operations);
  const microseconds: Record<string, number> = {};
  process.stdout.write(`\nsecp256k1: ${rounds} interleaved rounds of ${sliceMs} ms, median CPU time per operation (wall time in brackets)\n`);
  for (const [name, { cpu, wall }] of Object.entries(results)) {
    microseconds[name] = median(cpu);
    process.stdout.write(`  ${name.padEnd(42)} ${microseconds[name]!.toFixed(1).padStart(8)} µs   (${median(wall).toFixed(1)} µs)\n`);
  }
  const perPayment = (recover: string, sign: string) => ((microseconds[recover] ?? NaN) + 2 * (microseconds[sign] ?? NaN)) / 1000;
  const today = perPayment('recoverDigestSigner  noble', 'sign     viem account.sign');
  process.stdout.write(`\nCPU per payment (1 recovery + 2 receipt signatures):\n`);
  process.stdout.write(`  today (noble recovery, viem signatures)   ${today.toFixed(3)} ms\n`);
  if (native.ok) {
    const withNative = perPayment('recoverDigestSigner  libsecp256k1', 'evmSignerWithBackend libsecp256k1 .sign');
    process.stdout.write(`  libsecp256k1                              ${withNative.toFixed(3)} ms   (saves ${(today - withNative).toFixed(3)} ms per payment)\n`);
  }
}

/**
 * Runs each operation for `sliceMs` per round, interleaved, after a warm-up, and returns per round the
 * process CPU time and the wall time per operation in µs. The operations are synchronous and single
 * threaded, so CPU time is their cost even when other processes share the cores (wall time is not).
 */
function cpuTimeRounds(operations: Record<string, () => unknown>): Record<string, { cpu: number[]; wall: number[] }> {
  const results: Record<string, { cpu: number[]; wall: number[] }> = Object.fromEntries(Object.keys(operations).map((name) => [name, { cpu: [], wall: [] }]));
  const slice = (operation: () => unknown, durationMs: number) => {
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    let count = 0;
    while (performance.now() - wallStart < durationMs) {
      for (let index = 0; index < 8; index += 1) operation();
      count += 8;
    }
    const cpu = process.cpuUsage(cpuStart);
    return { cpu: (cpu.user + cpu.system) / count, wall: ((performance.now() - wallStart) * 1000) / count };
  };
  for (const operation of Object.values(operations)) slice(operation, Math.min(200, sliceMs));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, operation] of Object.entries(operations)) {
      const measured = slice(operation, sliceMs);
      results[name]!.cpu.push(measured.cpu);
      results[name]!.wall.push(measured.wall);
    }
  }
  return results;
}

/** A random private key in [1, n-1]. */
function randomPrivateKey(): Uint8Array {
  const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  for (;;) {
    const key = new Uint8Array(randomBytes(32));
    const scalar = BigInt(`0x${hexEncode(key)}`);
    if (scalar > 0n && scalar < order) return key;
  }
}
