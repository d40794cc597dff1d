import { checkNetwork, checksum, type GatewayNetwork } from './network';
import type { ExtensionEntry, PaymentRequired, PaymentRequirements, ResourceInfo } from './wire';

/** Parameters of {@link buildPaymentRequirements}. */
export interface BuildPaymentRequirementsParams {
  network: Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>;
  /** The merchant's receiving address (any case; emitted checksummed). */
  payTo: string;
  /** Atomic units as a positive decimal string without leading zeros. */
  amount: string;
  /** How long the client may take to pay; also bounds the authorization's validity the client signs. */
  maxTimeoutSeconds: number;
}

const POSITIVE_AMOUNT = /^[1-9][0-9]{0,77}$/;
const UINT256_MAX = (1n << 256n) - 1n;

/**
 * Builds the one `accepts[]` entry for an `exact` EIP-3009 payment. Deterministic: the same inputs give
 * a value with the same keys in the same order (`scheme, network, amount, asset, payTo,
 * maxTimeoutSeconds, extra { name, version }`, the order of the official SDK) and the same spelling
 * (EIP-55 checksummed addresses), because x402 clients echo it as `accepted` and the server compares the
 * echo with a freshly regenerated value. The result is frozen, so it can be cached per ref and amount.
 *
 * @param params - Network facts, payTo, amount and timeout.
 * @returns The payment requirements.
 * @throws TypeError / RangeError for inputs that are the caller's mistake (bad address, amount ≤ 0, …).
 *
 * @example
 * ```ts
 * import { buildPaymentRequirements } from '@tollgate/core/x402';
 * const accepted = buildPaymentRequirements({ network: base, payTo: merchant, amount: '10000', maxTimeoutSeconds: 300 });
 * // { scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x8335…', payTo: '0x…', maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }
 * ```
 */
export function buildPaymentRequirements(params: BuildPaymentRequirementsParams): Readonly<PaymentRequirements> {
  const network = checkNetwork(params.network);
  if (typeof params.amount !== 'string' || !POSITIVE_AMOUNT.test(params.amount) || BigInt(params.amount) > UINT256_MAX) {
    throw new RangeError(`amount must be a positive atomic decimal string, got ${String(params.amount)}.`);
  }
  if (!Number.isSafeInteger(params.maxTimeoutSeconds) || params.maxTimeoutSeconds <= 0) {
    throw new RangeError(`maxTimeoutSeconds must be a positive integer, got ${String(params.maxTimeoutSeconds)}.`);
  }
  return Object.freeze({
    scheme: 'exact',
    network: network.caip2,
    amount: params.amount,
    asset: network.usdc.address,
    payTo: checksum(params.payTo, 'payTo'),
    maxTimeoutSeconds: params.maxTimeoutSeconds,
    extra: Object.freeze({ name: network.usdc.name, version: network.usdc.version }),
  });
}

/** Parameters of {@link buildPaymentRequired}. */
export interface BuildPaymentRequiredParams {
  /** The paid resource: for Tollgate the ref's receive URL from its snapshot. */
  resource: ResourceInfo;
  /** At least one entry (Tollgate offers exactly one). */
  accepts: readonly Readonly<PaymentRequirements>[];
  /** Extension entries by key (`payment-identifier`, `offer-receipt`, `tollgate-offer`). */
  extensions?: Record<string, ExtensionEntry<unknown>>;
  /** A human reason shown by clients, e.g. `PAYMENT-SIGNATURE header is required`. */
  error?: string;
}

/**
 * Builds the x402 v2 `PaymentRequired` value that the `PAYMENT-REQUIRED` header carries (encode it with
 * `encodeX402Header`). Keys in the official order: `x402Version, error?, resource, accepts, extensions?`.
 *
 * @param params - Resource, accepts, extensions and the optional error text.
 * @returns The value.
 * @throws RangeError when `accepts` is empty or the resource has no URL.
 *
 * @example
 * ```ts
 * import { buildPaymentRequired, encodeX402Header } from '@tollgate/core/x402';
 * const required = buildPaymentRequired({ resource: { url, mimeType: 'application/json' }, accepts: [accepted], error: 'PAYMENT-SIGNATURE header is required' });
 * const header = encodeX402Header(required);
 * ```
 */
export function buildPaymentRequired(params: BuildPaymentRequiredParams): PaymentRequired {
  if (params.accepts.length === 0) throw new RangeError('accepts must hold at least one entry.');
  if (typeof params.resource?.url !== 'string' || params.resource.url === '') throw new RangeError('resource.url is required.');
  const required: PaymentRequired = { x402Version: 2 } as PaymentRequired;
  if (params.error !== undefined) required.error = params.error;
  required.resource = params.resource;
  required.accepts = params.accepts as PaymentRequirements[];
  if (params.extensions !== undefined) required.extensions = params.extensions;
  return required;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ADDRESS_FIELDS = new Set(['payTo', 'asset']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Path of the first difference between two JSON values, `undefined` when equal (objects key-order-insensitively). */
function firstDifference(actual: unknown, expected: unknown, path: string): string | undefined {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return path;
    const expectedKeys = Object.keys(expected).filter((key) => expected[key] !== undefined);
    const actualKeys = Object.keys(actual).filter((key) => actual[key] !== undefined);
    for (const key of expectedKeys) {
      if (!Object.hasOwn(actual, key) || actual[key] === undefined) return `${path}.${key}`;
      const difference = firstDifference(actual[key], expected[key], `${path}.${key}`);
      if (difference !== undefined) return difference;
    }
    const extra = actualKeys.find((key) => !Object.hasOwn(expected, key) || expected[key] === undefined);
    return extra === undefined ? undefined : `${path}.${extra}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return path;
    for (let index = 0; index < expected.length; index++) {
      const difference = firstDifference(actual[index], expected[index], `${path}.${index}`);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  return Object.is(actual, expected) || (actual === 0 && expected === 0) ? undefined : path;
}

/**
 * Finds where a client's `accepted` differs from the requirement the server regenerated. Key order is
 * ignored, values are compared exactly (types included: `"60"` ≠ `60`), a key present on one side only
 * is a difference, except that `payTo` and `asset` are compared as addresses, case-insensitively: the
 * same 20 bytes name the same account whichever EIP-55 spelling the client echoes.
 *
 * @param accepted - The client's `accepted` (untrusted).
 * @param expected - The regenerated requirement.
 * @returns The path of the first difference (`accepted.amount`, `accepted.extra.name`, `accepted` when
 *   not an object), or `undefined` when they match.
 *
 * @example
 * ```ts
 * import { findRequirementsMismatch } from '@tollgate/core/x402';
 * findRequirementsMismatch({ ...accepted, amount: '1' }, accepted); // 'accepted.amount'
 * ```
 */
export function findRequirementsMismatch(accepted: unknown, expected: Readonly<PaymentRequirements>): string | undefined {
  if (!isPlainObject(accepted)) return 'accepted';
  const normalized: Record<string, unknown> = { ...accepted };
  for (const field of ADDRESS_FIELDS) {
    const actual = accepted[field];
    const wanted = (expected as unknown as Record<string, unknown>)[field];
    if (typeof actual === 'string' && typeof wanted === 'string' && ADDRESS.test(actual) && ADDRESS.test(wanted)) {
      if (actual.toLowerCase() !== wanted.toLowerCase()) return `accepted.${field}`;
      normalized[field] = wanted;
    }
  }
  return firstDifference(normalized, expected, 'accepted');
}

/**
 * Whether a client's `accepted` equals the regenerated requirement (see {@link findRequirementsMismatch}
 * for the rules).
 *
 * @param accepted - The client's `accepted`.
 * @param expected - The regenerated requirement.
 * @returns `true` when they match.
 *
 * @example
 * ```ts
 * import { requirementsMatch } from '@tollgate/core/x402';
 * if (!requirementsMatch(payload.accepted, accepted)) refuse();
 * ```
 */
export function requirementsMatch(accepted: unknown, expected: Readonly<PaymentRequirements>): boolean {
  return findRequirementsMismatch(accepted, expected) === undefined;
}
