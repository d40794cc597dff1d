import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Header paths a structured logger must redact wherever a request object gets logged. These headers
 * carry replayable secrets: merchant API keys and admin tokens (`authorization`), the x402 payment
 * authorization (`payment-signature`), sessions (`cookie`), and idempotency keys that can replay a stored
 * response. Shaped for pino's `redact.paths`.
 */
export const redactedLogPaths: readonly string[] = [
  'req.headers.authorization',
  'req.headers["payment-signature"]',
  'req.headers["x-payment"]',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["payment-signature"]',
  'headers.cookie',
  'headers["idempotency-key"]',
];

/** The minimal logger shape Tollgate writes to (pino satisfies it). */
export interface LogSink {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  /** pino's level check; when present and `info` is off, request logging costs nothing per request. */
  isLevelEnabled?(level: string): boolean;
}

/**
 * Request logging middleware: one line per response with method, path (no query string: queries can
 * carry identifiers a merchant considers private), status and duration. It never logs headers or bodies,
 * so secrets cannot leak through it even if redaction were misconfigured. When the logger's level is above
 * `info` the middleware steps aside entirely (no listener per request): unexpected errors are logged where
 * they are rendered.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * import { logRequests, redactedLogPaths } from '@tollgate/core/node';
 * app.use(logRequests(pino({ redact: [...redactedLogPaths] })));
 * ```
 */
export function logRequests(logger: LogSink): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  if (logger.isLevelEnabled?.('info') === false) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const entry = {
        method: req.method,
        path: (req.url ?? '/').split('?')[0],
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      };
      if (res.statusCode >= 500) logger.error(entry, 'request failed');
      else logger.info(entry, 'request');
    });
    next();
  };
}
