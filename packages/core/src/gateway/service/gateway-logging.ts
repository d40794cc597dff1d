import type { PaymentEvent } from '../payments/payment-deps';
import type { GatewayLogger } from '../workers/gateway-workers';

// Only what needs a look reaches the console: an embedder who passes no logger still sees a payment
// left pending, a dead-lettered job or an unexpected error, and no request chatter.
const writeTo =
  (write: (message: string, fields: object) => void) =>
  (object: object, message?: string): void =>
    write(`[tollgate-gateway] ${message ?? ''}`, object);

/**
 * The logger `createGateway` uses when none is given: warnings and errors to the console, debug and
 * info dropped.
 *
 * @example
 * ```ts
 * import { consoleGatewayLogger } from '@tollgate/core/gateway';
 * consoleGatewayLogger.warn({ paymentId: 'pay_1' }, 'payment pending');
 * ```
 */
export const consoleGatewayLogger: GatewayLogger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: writeTo((message, fields) => console.warn(message, fields)),
  error: writeTo((message, fields) => console.error(message, fields)),
});

/**
 * Wraps a payment event listener so that a payment left `pending` while no workers run in this process
 * is logged as a warning: nothing here would finish it (see `createGateway`).
 *
 * @param logger - Where the warning goes.
 * @param workersRunning - Whether this process runs the gateway's workers now.
 * @param listener - The embedder's own listener, called for every event first.
 * @returns The listener to give the payments.
 * @example
 * ```ts
 * const onEvent = warnWhenPendingWithoutWorkers(logger, () => workers.running, options.onEvent);
 * ```
 */
export function warnWhenPendingWithoutWorkers(logger: Pick<GatewayLogger, 'warn'>, workersRunning: () => boolean, listener?: (event: PaymentEvent) => void): (event: PaymentEvent) => void {
  return (event) => {
    listener?.(event);
    if (event.type !== 'pending' || workersRunning()) return;
    logger.warn(
      { paymentId: event.paymentId, refId: event.refId, reason: event.reason },
      'payment left pending and no gateway workers run in this process: unless another process on this database runs them, it stays pending until gateway.workers.start() is called',
    );
  };
}
