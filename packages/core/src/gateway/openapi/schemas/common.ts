import * as v from 'valibot';
import { gatewayErrorCodes, type GatewayErrorCode } from '../../../errors/gateway';
import type { GatewayErrorBody } from '../../../errors/render';
import { named, type NamedSchema } from '../../../openapi/descriptors';
import type { AnySchema } from '../../../openapi/json-schema';

// Template literal types (`0x${string}`, `${string}:${string}`) become index signatures in a mapped
// type, so an empty object type extends `Record<T, 1>` exactly when T is `string` or such a pattern.
type IsPattern<T extends string> = Record<never, never> extends Record<T, 1> ? true : false;

/**
 * A type as a response schema can state it: readonly dropped, template literal strings (`Hash`,
 * `Network`) widened to `string` (the schema states them with a `pattern`), interfaces as plain object
 * types.
 */
export type Documented<T> = T extends string
  ? IsPattern<T> extends true
    ? string
    : T
  : T extends readonly (infer Item)[]
    ? Documented<Item>[]
    : T extends object
      ? { -readonly [K in keyof T]: Documented<T[K]> }
      : T;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Ties a response schema to the TypeScript type the service returns: `describes<CreatedRef>()(schema)`
 * compiles only when the schema's output and the type (see {@link Documented}) are assignable both ways,
 * so a field added to, removed from or retyped in either fails the typecheck. The runtime check is the
 * gateway-server test that validates real responses against the document.
 *
 * @returns A function returning the schema unchanged.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { describes } from '@tollgate/core/gateway';
 * const revoked = describes<{ refId: string; status: 'revoked' }>()(v.object({ refId: v.string(), status: v.literal('revoked') }));
 * ```
 */
export function describes<T>() {
  return <S extends AnySchema>(schema: S & (Same<Documented<v.InferOutput<S>>, Documented<T>> extends true ? unknown : { readonly 'schema and type differ': Documented<T> })): S =>
    schema;
}

/** Every gateway error code, in table order. */
export const allGatewayErrorCodes = Object.keys(gatewayErrorCodes) as [GatewayErrorCode, ...GatewayErrorCode[]];

const detailsSchema = v.pipe(v.record(v.string(), v.unknown()), v.description('Machine-readable facts of the error (the field at fault, a retry delay, …).'));

/**
 * The gateway error envelope `{ x402Version: 2, error: { code, message, details } }` with `code`
 * narrowed to `codes`, and optionally a schema of `details`.
 *
 * @param codes - The codes the envelope may carry.
 * @param details - The schema of `details`; any object by default.
 * @returns The schema.
 * @example
 * ```ts
 * import { gatewayErrorEnvelopeSchema } from '@tollgate/core/gateway';
 * const notFound = gatewayErrorEnvelopeSchema(['not_found']);
 * ```
 */
export function gatewayErrorEnvelopeSchema<Details extends AnySchema = typeof detailsSchema>(codes: readonly GatewayErrorCode[], details?: Details) {
  return v.object({
    x402Version: v.literal(2),
    error: v.object({
      code: v.picklist(codes as [GatewayErrorCode, ...GatewayErrorCode[]]),
      message: v.pipe(v.string(), v.description('For people: what went wrong and what to do.')),
      details: (details ?? detailsSchema) as Details,
    }),
  });
}

/** A 20-byte address as the gateway answers it (EIP-55 checksummed). */
export const addressOut = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/));
/** A 32-byte hash, 0x hex. */
export const hash32Out = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/));
/** A non-negative decimal integer string (atomic amounts, block numbers). */
export const decimalOut = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)$/));
/** Unix seconds. */
export const unixSeconds = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.description('Unix time in seconds.'));
/** A CAIP-2 network id (`eip155:8453`). */
export const caip2Out = v.pipe(v.string(), v.regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/), v.description('CAIP-2 network id, e.g. eip155:8453.'));
/** A ref id: 32 lowercase hex digits. */
export const refIdOut = v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/));

/** `components.schemas.GatewayError`: the envelope with any code. */
export const gatewayErrorSchema = named('GatewayError', describes<GatewayErrorBody>()(gatewayErrorEnvelopeSchema(allGatewayErrorCodes, v.record(v.string(), v.unknown()))));

// What some codes always carry in `details`; the others carry any object.
const detailsOf: Partial<Record<GatewayErrorCode, AnySchema>> = {
  payment_required: v.pipe(
    v.object({ refId: refIdOut, network: caip2Out, amount: decimalOut, asset: addressOut, payTo: addressOut }),
    v.description('What is to be paid: the ref, CAIP-2 network, atomic amount, token contract and payTo.'),
  ),
};

const envelopes = new Map<GatewayErrorCode, NamedSchema>();

/**
 * The envelope of one error code, named after it (`not_found` → `NotFoundError`): every operation that
 * can answer the code refers to this one component. One object per code, so the registry sees one schema.
 *
 * @param code - The code.
 * @returns The named envelope schema.
 * @example
 * ```ts
 * import { gatewayErrorOf } from '@tollgate/core/gateway';
 * gatewayErrorOf('ref_expired').name; // 'RefExpiredError'
 * ```
 */
export function gatewayErrorOf(code: GatewayErrorCode): NamedSchema {
  let envelope = envelopes.get(code);
  if (envelope === undefined) {
    const name = `${code.replace(/(^|_)([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase())}Error`;
    envelope = named(name, gatewayErrorEnvelopeSchema([code], detailsOf[code]));
    envelopes.set(code, envelope);
  }
  return envelope;
}
