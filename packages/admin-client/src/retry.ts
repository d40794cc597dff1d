/**
 * The retry schedule: which answers are retried, how long to wait (exponential backoff with full
 * jitter, or the server's `Retry-After`), and an abortable sleep.
 *
 * @module
 */

/** First backoff ceiling: attempt n waits a random time in [0, min(maxBackoffMs, baseBackoffMs · 2ⁿ)). */
export const baseBackoffMs = 500;
/** Largest backoff ceiling without a `Retry-After`. */
export const maxBackoffMs = 8_000;
/**
 * Longest `Retry-After` the client waits for. A server asking for more (maintenance, a long rate-limit
 * window) is not retried sooner than it asked: the error is thrown at once with `retryAfterSeconds`,
 * so the caller decides instead of the client sleeping for minutes or hammering early.
 */
export const maxRetryAfterSeconds = 60;

/** Statuses retried (with the same idempotency key): rate limited and temporarily unavailable, nothing else. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Seconds of a `Retry-After` header: delta-seconds or an HTTP date (relative to `now`, never negative).
 *
 * @param header - The header value, or `null`.
 * @param now - Current time in ms since the epoch.
 * @returns Seconds, or `undefined` when absent or unreadable.
 * @example
 * ```ts
 * parseRetryAfter('3', Date.now()); // 3
 * ```
 */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed);
  // HTTP dates always name the weekday and GMT; anything else Date.parse might guess at is ignored.
  if (!/^[A-Za-z]{3}, .+ GMT$/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * How long to wait before retry number `retry` (0 for the first retry), or `undefined` when the
 * server's `Retry-After` is beyond {@link maxRetryAfterSeconds} and the call must not be retried.
 *
 * @param retry - 0-based retry number.
 * @param retryAfterSeconds - The server's `Retry-After`, when it sent one.
 * @param random - A uniform number in [0, 1).
 * @returns Milliseconds to wait, or `undefined` to give up.
 */
export function retryDelayMs(retry: number, retryAfterSeconds: number | undefined, random: () => number): number | undefined {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds > maxRetryAfterSeconds ? undefined : retryAfterSeconds * 1000;
  const ceiling = Math.min(maxBackoffMs, baseBackoffMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * Resolves after `ms`, or rejects with `signal.reason` as soon as `signal` aborts.
 *
 * @param ms - Milliseconds.
 * @param signal - The caller's signal, if any.
 */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
