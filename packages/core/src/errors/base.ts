/** Options accepted by every {@link TollgateError}. */
export interface TollgateErrorOptions {
  /** Machine-readable facts about the failure (which field, which limit). Never secrets. */
  details?: Record<string, unknown>;
  /** The lower-level error that caused this one. Kept for logs; never rendered to clients. */
  cause?: unknown;
}

/**
 * Base class of every error Tollgate throws on purpose. The `code` is stable and comes from one of the
 * registries in this folder; `message` is for humans; `details` is safe to show to the caller.
 *
 * @example
 * ```ts
 * import { TollgateError } from '@tollgate/core';
 * try { await work(); } catch (e) { if (e instanceof TollgateError) console.log(e.code, e.details); }
 * ```
 */
export class TollgateError extends Error {
  override readonly name: string = 'TollgateError';
  /** Stable code from a registry (a string, or an integer for the license client protocol). */
  readonly code: string | number;
  /** Caller-safe structured facts about the failure. */
  readonly details: Record<string, unknown>;

  constructor(code: string | number, message: string, options: TollgateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `value` is a {@link TollgateError} (also across duplicated module copies). */
export function isTollgateError(value: unknown): value is TollgateError {
  return (
    value instanceof TollgateError ||
    (value instanceof Error && 'code' in value && 'details' in value && typeof (value as { details: unknown }).details === 'object')
  );
}
