/**
 * Something the merchant API changed that other parts of this instance may have cached, told after the
 * store write succeeded:
 * - `ref_revoked`: the ref `refId` was revoked (also when it already was: revocation is idempotent);
 * - `payto_retired`: the payTo `address` (EIP-55 checksummed) was retired (idempotent too).
 *
 * The negotiation's status cache (`PaymentContexts`) listens to both: they are what invalidates it.
 */
export type GatewayEvent = { readonly type: 'ref_revoked'; readonly refId: string } | { readonly type: 'payto_retired'; readonly address: string };

/** A listener of {@link GatewayEvents}. */
export type GatewayEventListener = (event: GatewayEvent) => void;

/**
 * A typed, synchronous, in-process event channel. It reaches the listeners of this instance only: other
 * instances learn of a change from the database (the negotiation re-reads statuses after
 * `statusCacheMs`, and the settlement claim reads them in its own statement).
 */
export interface GatewayEvents {
  /**
   * Calls every listener with `event`, in subscription order. A listener that throws is reported to
   * `onListenerError` and never stops the others nor reaches the caller: the write it follows already
   * happened, and its caller's answer must not depend on a cache.
   */
  emit(event: GatewayEvent): void;
  /**
   * Adds a listener.
   *
   * @returns A function that removes it.
   */
  subscribe(listener: GatewayEventListener): () => void;
}

/** Options of {@link createGatewayEvents}. */
export interface GatewayEventsOptions {
  /** Told about a listener that threw (for example to log it). Default: ignored. Must not throw. */
  readonly onListenerError?: (error: unknown, event: GatewayEvent) => void;
}

/**
 * Creates an event channel. `createGateway` creates one when its deps carry none, has the ref and
 * account services emit on it, and subscribes the negotiation's status cache.
 *
 * @param options - Where listener errors go.
 * @returns The channel.
 * @example
 * ```ts
 * import { createGatewayEvents } from '@tollgate/core';
 * const events = createGatewayEvents({ onListenerError: (error) => logger.warn({ err: error }, 'gateway event listener failed') });
 * const unsubscribe = events.subscribe((event) => {
 *   if (event.type === 'ref_revoked') cache.delete(event.refId);
 * });
 * events.emit({ type: 'ref_revoked', refId: '00112233445566778899aabbccddeeff' });
 * unsubscribe();
 * ```
 */
export function createGatewayEvents(options: GatewayEventsOptions = {}): GatewayEvents {
  const listeners = new Set<GatewayEventListener>();
  return {
    emit(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          try {
            options.onListenerError?.(error, event);
          } catch {
            // A failing error reporter has nowhere left to report to; the emitter still must not throw.
          }
        }
      }
    },
    subscribe(listener) {
      // A wrapper per subscription, so subscribing one function twice yields two independent entries.
      const entry: GatewayEventListener = (event) => listener(event);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}
