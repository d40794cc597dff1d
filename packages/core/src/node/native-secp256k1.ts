import { nobleSecp256k1, type Secp256k1Backend } from '../x402/secp256k1-backend';

/** The part of the `secp256k1` package's N-API binding (libsecp256k1) that Tollgate calls. */
interface Libsecp256k1Binding {
  ecdsaSign(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, digest: Uint8Array, compressed: boolean): Uint8Array;
}

// The binding itself, not the package's main entry: that one silently falls back to `elliptic` (pure
// JavaScript, slower than noble) when the native module does not load, and we fall back to noble.
// A variable keeps bundlers from resolving it at build time: the package is optional.
const bindingSpecifier = 'secp256k1/bindings.js';

function isBinding(value: unknown): value is Libsecp256k1Binding {
  const candidate = value as Partial<Libsecp256k1Binding> | null;
  return typeof candidate?.ecdsaSign === 'function' && typeof candidate.ecdsaRecover === 'function';
}

function bytesEqual(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((byte, index) => byte === b[index]);
}

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * The digest modulo the curve order, as 32 bytes. RFC 6979 derives the nonce from the reduced digest
 * (`bits2octets`) and noble follows it; this libsecp256k1 build derives it from the raw bytes, so for a
 * digest ≥ n (about one in 2^128) it would sign with another nonce. ECDSA signs the reduced value either
 * way, so handing it the reduced digest gives noble's signature exactly.
 */
function reducedModuloOrder(digest: Uint8Array): Uint8Array {
  // n starts with fifteen 0xff bytes: any other first byte is below it (255 digests in 256).
  if (digest.length !== 32 || digest[0] !== 0xff) return digest;
  let value = 0n;
  for (const byte of digest) value = (value << 8n) | BigInt(byte);
  if (value < CURVE_ORDER) return digest;
  // 2^256 < 2n, so one subtraction reduces it.
  let reduced = value - CURVE_ORDER;
  const bytes = new Uint8Array(32);
  for (let index = 31; index >= 0; index -= 1) {
    bytes[index] = Number(reduced & 0xffn);
    reduced >>= 8n;
  }
  return bytes;
}

function libsecp256k1Backend(binding: Libsecp256k1Binding): Secp256k1Backend {
  return {
    name: 'libsecp256k1',
    recoverPublicKey(digest, signature, recoveryBit) {
      try {
        return binding.ecdsaRecover(signature, recoveryBit, digest, false);
      } catch {
        // The binding throws when no key recovers (r not on the curve, or the point at infinity).
        return undefined;
      }
    },
    sign(digest, privateKey) {
      const { signature, recid } = binding.ecdsaSign(reducedModuloOrder(digest), privateKey);
      // 2 and 3 mean r overflowed the order (probability about 2^-128): no EVM `v` can express it.
      if (recid !== 0 && recid !== 1) throw new Error(`libsecp256k1 returned recovery id ${recid}, which v = 27/28 cannot carry.`);
      return { signature, recoveryBit: recid };
    },
  };
}

/**
 * A known-answer check against noble, so a binding that loads but computes something else (a broken
 * build, another package under the name) is never used: one signature and one recovery must match.
 */
function agreesWithNoble(backend: Secp256k1Backend): boolean {
  const digest = Uint8Array.from({ length: 32 }, (_, index) => (index * 7 + 1) & 0xff);
  const privateKey = Uint8Array.from({ length: 32 }, (_, index) => (index * 13 + 5) & 0xff);
  const expected = nobleSecp256k1.sign(digest, privateKey);
  const actual = backend.sign(digest, privateKey);
  return (
    actual.recoveryBit === expected.recoveryBit &&
    bytesEqual(actual.signature, expected.signature) &&
    bytesEqual(backend.recoverPublicKey(digest, expected.signature, expected.recoveryBit), nobleSecp256k1.recoverPublicKey(digest, expected.signature, expected.recoveryBit))
  );
}

/** Options of {@link loadNativeSecp256k1} and {@link loadSecp256k1Backend}. */
export interface NativeSecp256k1Options {
  /** Imports the binding module (default: the optional `secp256k1` package's N-API binding). Tests swap it. */
  importBinding?: () => Promise<unknown>;
}

/** Why {@link loadSecp256k1Backend} fell back to noble: `missing` (not installed or no build for this platform), `mismatch` (it loaded but failed the known-answer check). */
export type NativeSecp256k1Unavailable = 'missing' | 'mismatch';

/**
 * Loads libsecp256k1 through the optional `secp256k1` package (N-API; prebuilt for linux-x64 glibc and
 * musl, darwin-arm64 and win32-x64, compiled by node-gyp elsewhere when a toolchain is present), checked
 * against noble on a known answer.
 *
 * @param options - How to import the binding.
 * @returns The native backend, or why there is none.
 * @example
 * ```ts
 * import { loadNativeSecp256k1 } from '@tollgate/core/node';
 * const native = await loadNativeSecp256k1();
 * if (native.ok) console.log(native.backend.name); // 'libsecp256k1'
 * ```
 */
export async function loadNativeSecp256k1(options: NativeSecp256k1Options = {}): Promise<{ ok: true; backend: Secp256k1Backend } | { ok: false; reason: NativeSecp256k1Unavailable }> {
  let binding: unknown;
  try {
    const module = (await (options.importBinding ?? (() => import(bindingSpecifier)))()) as { default?: unknown } | null;
    binding = module?.default ?? module;
  } catch {
    return { ok: false, reason: 'missing' };
  }
  if (!isBinding(binding)) return { ok: false, reason: 'missing' };
  const backend = libsecp256k1Backend(binding);
  try {
    if (agreesWithNoble(backend)) return { ok: true, backend };
  } catch {
    // A binding that throws on a valid key and digest is as unusable as one that answers wrongly.
  }
  return { ok: false, reason: 'mismatch' };
}

/** Where {@link loadSecp256k1Backend} reports which backend it chose. */
export interface Secp256k1BackendLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * The fastest secp256k1 backend this process can use: libsecp256k1 (about 0.06 ms per recovery and
 * 0.04 ms per signature on the reference machine) when the optional `secp256k1` package loads and
 * agrees with noble, else `@noble/curves` (about 1.4 ms and 0.47 ms). Either gives byte-identical
 * signatures and recovers the same addresses; only speed differs. The choice is logged once: `info`
 * for either normal case, `warn` when a binding loaded but disagreed with noble.
 *
 * @param logger - Where to say which backend runs.
 * @param options - How to import the binding.
 * @returns The backend to hand to `recoverDigestSigner`, `verifyExactPayment` and `evmSignerWithBackend`.
 * @example
 * ```ts
 * import { evmSignerWithBackend } from '@tollgate/core/x402';
 * import { loadSecp256k1Backend } from '@tollgate/core/node';
 * const secp256k1 = await loadSecp256k1Backend(logger);
 * const signer = evmSignerWithBackend(signingKey, secp256k1);
 * ```
 */
export async function loadSecp256k1Backend(logger: Secp256k1BackendLogger, options: NativeSecp256k1Options = {}): Promise<Secp256k1Backend> {
  const native = await loadNativeSecp256k1(options);
  if (native.ok) {
    logger.info({ secp256k1: native.backend.name }, 'secp256k1: libsecp256k1 (native)');
    return native.backend;
  }
  if (native.reason === 'mismatch') logger.warn({ secp256k1: 'noble', reason: native.reason }, 'secp256k1: the native binding disagreed with noble; using noble');
  else logger.info({ secp256k1: 'noble', reason: native.reason }, 'secp256k1: noble (the optional secp256k1 package is not loadable here)');
  return nobleSecp256k1;
}
