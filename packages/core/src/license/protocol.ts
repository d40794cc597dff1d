import type { DecodeLimits } from '../cbor';

/**
 * The license client protocol version: the `X-LS-Proto` header value and key 0 (`proto_ver`) of every
 * request, response and signed payload. Anything else is refused (HTTP 426, code 1004).
 *
 * @example
 * ```ts
 * import { licenseProtocolVersion, licenseProtocolHeader } from '@tollgate/core/license';
 * await fetch(url, { headers: { [licenseProtocolHeader]: String(licenseProtocolVersion) } });
 * ```
 */
export const licenseProtocolVersion = 1;

/**
 * The request header that carries {@link licenseProtocolVersion} (lower-case, as the HTTP layer sees it).
 *
 * @example
 * ```ts
 * import { licenseProtocolHeader } from '@tollgate/core/license';
 * const supported = request.headers[licenseProtocolHeader] === '1';
 * ```
 */
export const licenseProtocolHeader = 'x-ls-proto';

/**
 * Byte lengths of the protocol's fixed-size values: 16-byte license and machine ids, 8-byte epoch ids,
 * 32-byte nonces, fingerprints and tokens, 32-byte Ed25519 keys and 64-byte signatures.
 *
 * @example
 * ```ts
 * import { randomBytes } from '@tollgate/core/crypto';
 * import { licenseWireLengths } from '@tollgate/core/license';
 * const nonce = randomBytes(licenseWireLengths.nonce);
 * ```
 */
export const licenseWireLengths = Object.freeze({
  licenseId: 16,
  machineId: 16,
  epochId: 8,
  nonce: 32,
  fingerprint: 32,
  token: 32,
  publicKey: 32,
  signature: 64,
  rootKeyDigest: 32,
});

/**
 * What a product id looks like: 1–64 characters of lower-case letters, digits, `.`, `_` and `-`,
 * starting with a letter or digit (`acme-editor`, or 32 hex digits). Products are bound into every
 * product-scoped signature, so the form is strict: one product has exactly one spelling.
 *
 * @example
 * ```ts
 * import { productIdPattern } from '@tollgate/core/license';
 * productIdPattern.test('acme-editor'); // true
 * ```
 */
export const productIdPattern = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * Decode limits for one signed artifact envelope (256 KiB, depth 16). Larger than the 16 KiB client
 * body limit because revocation batches and offline responses embed lists; a keyset uses
 * `bulkDecodeLimits`.
 *
 * @example
 * ```ts
 * import { decodeCanonical } from '@tollgate/core/cbor';
 * import { artifactDecodeLimits } from '@tollgate/core/license';
 * decodeCanonical(bytes, { limits: artifactDecodeLimits });
 * ```
 */
export const artifactDecodeLimits: DecodeLimits = Object.freeze({
  maxInputBytes: 256 * 1024,
  maxDepth: 16,
  maxStringBytes: 256 * 1024,
  maxContainerLength: 4096,
  maxTotalItems: 16_384,
});

/**
 * Most ids (license + machine + epoch) in one revocation batch, which keeps a batch under ~20 KiB.
 *
 * @example
 * ```ts
 * import { maxRevocationBatchIds } from '@tollgate/core/license';
 * const chunks = Math.ceil(licenseIds.length / maxRevocationBatchIds);
 * ```
 */
export const maxRevocationBatchIds = 1024;

/**
 * Most batches in one `GET /v1/revocations` page; see `revocationPageRange`.
 *
 * @example
 * ```ts
 * import { revocationPageSize } from '@tollgate/core/license';
 * const pageEnd = (Math.floor(since / revocationPageSize) + 1) * revocationPageSize;
 * ```
 */
export const revocationPageSize = 64;

/**
 * Most certificates in a keyset (and in an offline response: 8).
 *
 * @example
 * ```ts
 * import { maxKeysetCertificates } from '@tollgate/core/license';
 * if (certificates.length > maxKeysetCertificates) throw new Error('keyset too large');
 * ```
 */
export const maxKeysetCertificates = 1000;

/**
 * How far, in seconds, a verifier's clock may differ from the server's. Verifiers accept an epoch from
 * `notBefore − 300` until `notAfter + 300` (exclusive) of their own clock and a revocation batch dated
 * up to 300 s after it; servers sign with a new epoch only once its `notBefore` is at least this far in
 * the past (when an older epoch is still valid), so clocks running behind by up to twice this margin
 * still accept fresh artifacts.
 *
 * @example
 * ```ts
 * import { licenseClockSkewSeconds } from '@tollgate/core/license';
 * const acceptedFrom = epoch.notBefore - licenseClockSkewSeconds;
 * ```
 */
export const licenseClockSkewSeconds = 300;
