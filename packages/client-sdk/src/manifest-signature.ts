import { hexEncode } from '@tollgate/core';
import { verifyEd25519 } from '@tollgate/core/crypto';
import {
  IntegrityManifestError,
  integrityManifestSigningMessage,
  integritySignerFingerprint,
  parseIntegrityManifest,
  type IntegrityManifest,
} from '@tollgate/core/license';

/** What {@link verifyManifestSignature} checks. */
export interface ManifestSignatureInput {
  /** The manifest bytes exactly as signed (canonical CBOR). */
  readonly manifest: Uint8Array;
  /** The 64 signature bytes `POST /v1/admin/integrity/sign` answered. */
  readonly signature: Uint8Array;
  /** The signer public keys (32-byte Ed25519) the app trusts: the ones embedded at build time. */
  readonly trustedKeys: readonly Uint8Array[];
  /** The product the app is: a manifest of another product is refused. */
  readonly productId?: string;
  /** `X-LS-Signer-Key` as shipped with the signature (64 hex), when known: only that key is tried. */
  readonly signerFingerprint?: string;
}

/** Why a manifest was refused; checked in this order. */
export type ManifestSignatureRefusal =
  /** The signature is not 64 bytes. */
  | 'malformed_signature'
  /** No trusted key has the given fingerprint, or none of them verifies the signature. */
  | 'bad_signature'
  /** The signature verifies, but the bytes are not a well-formed manifest (never trusted then). */
  | 'malformed_manifest'
  /** The manifest names another signer key than the one that signed it. */
  | 'signer_mismatch'
  /** The manifest is for another product. */
  | 'wrong_product';

/** The outcome: the manifest and its signer, or the reason it was refused. */
export type ManifestSignatureOutcome =
  | { readonly valid: true; readonly manifest: IntegrityManifest; readonly signerFingerprint: string }
  | { readonly valid: false; readonly reason: ManifestSignatureRefusal };

/**
 * Verifies an integrity manifest signed by the license server, in the browser or in Node (pure
 * JavaScript, no platform crypto). The signature is checked first, over the label-prefixed bytes
 * (`integrityManifestSigningMessage`), with the trusted keys; only bytes that verified are parsed, and the
 * manifest must then name the key that signed it (and the expected product). A single changed byte of
 * the manifest or signature fails with `bad_signature`. Checking each file's SHA-256 against
 * `manifest.files` is up to the caller.
 *
 * @param input - Manifest, signature, trusted keys, expected product.
 * @returns The verified manifest, or why it was refused (never throws for bad input).
 * @example
 * ```ts
 * import { verifyManifestSignature } from '@tollgate/client-sdk';
 * const outcome = verifyManifestSignature({ manifest, signature, trustedKeys: [embeddedSignerKey], productId });
 * if (!outcome.valid) throw new Error(`integrity manifest refused: ${outcome.reason}`);
 * for (const file of outcome.manifest.files) { ... compare SHA-256 of file.path with file.sha256 ... }
 * ```
 */
export function verifyManifestSignature(input: ManifestSignatureInput): ManifestSignatureOutcome {
  if (!(input.signature instanceof Uint8Array) || input.signature.length !== 64) return { valid: false, reason: 'malformed_signature' };
  const message = integrityManifestSigningMessage(input.manifest);
  let signer: string | undefined;
  for (const key of input.trustedKeys) {
    if (!(key instanceof Uint8Array) || key.length !== 32) continue;
    const fingerprint = hexEncode(integritySignerFingerprint(key));
    if (input.signerFingerprint !== undefined && fingerprint !== input.signerFingerprint.toLowerCase()) continue;
    // RFC 8032 strict verification (no malleable encodings accepted).
    if (verifyEd25519(key, message, input.signature)) {
      signer = fingerprint;
      break;
    }
  }
  if (signer === undefined) return { valid: false, reason: 'bad_signature' };
  let manifest: IntegrityManifest;
  try {
    manifest = parseIntegrityManifest(input.manifest);
  } catch (error) {
    if (error instanceof IntegrityManifestError) return { valid: false, reason: 'malformed_manifest' };
    throw error;
  }
  if (hexEncode(manifest.signerKey) !== signer) return { valid: false, reason: 'signer_mismatch' };
  if (input.productId !== undefined && manifest.productId !== input.productId) return { valid: false, reason: 'wrong_product' };
  return { valid: true, manifest, signerFingerprint: signer };
}

