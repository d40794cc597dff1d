import { hexEncode } from '@tollgate/core';
import { createNativeEd25519Verifier, isStrictEd25519Input, verifyEd25519, type NativeEd25519Crypto } from '@tollgate/core/crypto';
import type { SignatureVerifier } from '@tollgate/core/license';

/**
 * An Ed25519 check that answers asynchronously, like WebCrypto's `crypto.subtle.verify`. The SDK's
 * verification is synchronous at its core (`verifyArtifact`, `verifyKeyset`), so an asynchronous check
 * runs through {@link verifyWithChecks}.
 */
export interface AsyncSignatureVerifier {
  verifyAsync(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

/** What the SDK accepts as its Ed25519 check: a synchronous function, or an {@link AsyncSignatureVerifier}. */
export type SdkSignatureVerifier = SignatureVerifier | AsyncSignatureVerifier;

type Triple = { publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array };

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, index) => byte === b[index]);
const sameTriple = (a: Triple, b: Triple) => equalBytes(a.signature, b.signature) && equalBytes(a.publicKey, b.publicKey) && equalBytes(a.message, b.message);

/** Thrown inside a pass to stop at the first signature whose asynchronous answer is not known yet. */
const unanswered = Symbol('signature not checked yet');

/** More signatures than any keyset or artifact holds: past it the rest are checked with noble, synchronously. */
const maxAsyncChecks = 64;

/**
 * Runs a synchronous verification (`run` calls `verify` for each signature it meets) with `verifier`.
 * A synchronous verifier is passed straight through. An asynchronous one is driven in passes: a pass
 * stops at the first signature not answered yet, that exact (key, message, signature) is checked
 * asynchronously, and `run` starts again with the answers so far. `verify` only ever returns what the
 * asynchronous check answered for those exact bytes, so the outcome is the one a synchronous check
 * would give; a pass that met an unanswered signature never counts, even if `run` swallowed the stop.
 *
 * @param verifier - The check (the runtime default when absent: see {@link defaultSignatureVerifier}).
 * @param run - The synchronous verification.
 * @returns What `run` returned on the pass that met no unanswered signature.
 * @example
 * ```ts
 * const keyset = await verifyWithChecks(webCryptoEd25519Verifier(), (verify) => verifyKeyset(bytes, pins, now, { verify }));
 * ```
 */
export async function verifyWithChecks<T>(verifier: SdkSignatureVerifier | undefined, run: (verify: SignatureVerifier) => T): Promise<T> {
  const check = verifier ?? defaultSignatureVerifier();
  if (typeof check === 'function') return run(check);
  const answered: (Triple & { valid: boolean })[] = [];
  for (let pass = 0; pass <= maxAsyncChecks; pass += 1) {
    let pending: Triple | undefined;
    const verify: SignatureVerifier = (publicKey, message, signature) => {
      const asked = { publicKey, message, signature };
      const known = answered.find((entry) => sameTriple(entry, asked));
      if (known !== undefined) return known.valid;
      pending ??= { publicKey: publicKey.slice(), message: message.slice(), signature: signature.slice() };
      throw unanswered;
    };
    let outcome: { value: T } | undefined;
    try {
      outcome = { value: run(verify) };
    } catch (error) {
      if (pending === undefined) throw error;
    }
    if (pending === undefined) return (outcome as { value: T }).value;
    answered.push({ ...pending, valid: await check.verifyAsync(pending.publicKey, pending.message, pending.signature) });
  }
  return run(verifyEd25519);
}

/** The synchronous check to use where no `await` is possible: `verifier` itself, or the runtime's fastest synchronous one. */
export function synchronousVerifier(verifier: SdkSignatureVerifier | undefined): SignatureVerifier {
  return typeof verifier === 'function' ? verifier : (nativeVerifier() ?? verifyEd25519);
}

let native: SignatureVerifier | null | undefined;

/**
 * Node's native Ed25519 (OpenSSL) when the runtime offers `node:crypto` without a static import
 * (`process.getBuiltinModule`, Node ≥ 20.16, Electron's main process), else `undefined`. Found at run
 * time so the default entry stays free of Node-only imports and bundles for browsers unchanged.
 */
function nativeVerifier(): SignatureVerifier | undefined {
  if (native === undefined) {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const crypto = typeof runtime?.getBuiltinModule === 'function' ? (runtime.getBuiltinModule('node:crypto') as NativeEd25519Crypto | undefined) : undefined;
    native = crypto === undefined || typeof crypto.createPublicKey !== 'function' ? null : createNativeEd25519Verifier(crypto);
  }
  return native ?? undefined;
}

/**
 * The SDK's default Ed25519 check: Node's native one where the runtime has it (synchronous, about ten
 * times noble's speed), otherwise WebCrypto's Ed25519 (current browsers), otherwise noble.
 *
 * @returns The check.
 * @example
 * ```ts
 * const verify = defaultSignatureVerifier();
 * ```
 */
export function defaultSignatureVerifier(): SdkSignatureVerifier {
  return nativeVerifier() ?? webCryptoEd25519Verifier();
}

/** WebCrypto's Ed25519 key type (may be missing in a runtime; then noble answers). */
type Subtle = Pick<SubtleCrypto, 'importKey' | 'verify'>;

/**
 * An {@link AsyncSignatureVerifier} on WebCrypto's Ed25519 (`crypto.subtle`), with noble as the fallback
 * when the runtime lacks it (detected once, at the first check). The strict byte checks of noble's
 * `verifyEd25519` (canonical key and `R`, `S` below the group order, no small-order key) apply first, so
 * it accepts what the synchronous checks accept; imported keys are cached.
 *
 * @param subtle - The WebCrypto implementation (`globalThis.crypto.subtle` by default).
 * @returns The verifier.
 * @example
 * ```ts
 * import { createLicenseClient, webCryptoEd25519Verifier } from '@tollgate/client-sdk';
 * const client = createLicenseClient({ ...options, verify: webCryptoEd25519Verifier() });
 * ```
 */
export function webCryptoEd25519Verifier(subtle: Subtle | undefined = globalThis.crypto?.subtle): AsyncSignatureVerifier {
  const keys = new Map<string, Promise<CryptoKey | undefined>>();
  let supported: Promise<boolean> | undefined;
  const importKey = (publicKey: Uint8Array): Promise<CryptoKey | undefined> => {
    const id = hexEncode(publicKey);
    let key = keys.get(id);
    if (key === undefined) {
      key = (subtle as Subtle).importKey('raw', publicKey.slice(), { name: 'Ed25519' }, false, ['verify']).catch(() => undefined);
      if (keys.size >= 256) keys.delete(keys.keys().next().value as string);
      keys.set(id, key);
    }
    return key;
  };
  return {
    async verifyAsync(publicKey, message, signature) {
      if (!isStrictEd25519Input(publicKey, signature)) return false;
      supported ??= subtle === undefined ? Promise.resolve(false) : probe(subtle);
      if (!(await supported)) return verifyEd25519(publicKey, message, signature);
      const key = await importKey(publicKey);
      if (key === undefined) return false;
      return (subtle as Subtle).verify({ name: 'Ed25519' }, key, signature.slice(), message.slice()).catch(() => false);
    },
  };
}

/** The Ed25519 base point's encoding: a valid key any WebCrypto with Ed25519 imports. */
const probeKey = Uint8Array.from([0x58, ...new Array<number>(31).fill(0x66)]);

async function probe(subtle: Subtle): Promise<boolean> {
  try {
    await subtle.importKey('raw', probeKey, { name: 'Ed25519' }, false, ['verify']);
    return true;
  } catch {
    return false;
  }
}
