import type { HeartbeatResult } from '../session-calls';
import type { ClientTimers } from './client-timers';
import { classifyFailure, retryDelayMs } from './license-state';

/** What the heartbeat pacer needs from the license client. */
export interface HeartbeatPacerOptions {
  readonly timers: ClientTimers;
  /** The device clock (unix seconds). */
  now(): number;
  random(): number;
  /** Whether heartbeats may be scheduled (the client runs and the license is usable). */
  mayRun(): boolean;
  /** Sends one heartbeat; `undefined` when there is nothing to send (no license, stopped). */
  send(): Promise<HeartbeatResult | undefined>;
  /** Runs a task behind the client's other calls (they never overlap). */
  queue(task: () => Promise<void>): Promise<void>;
  /** The seat is gone or the server refused the heartbeat: the next validation says why. */
  onNoSeat(): void;
  onError(error: unknown): void;
}

/** Heartbeats paced by server time, with their own backoff. */
export interface HeartbeatPacer {
  /** Learns the server's clock from a signed answer's time, read at its receipt. */
  learnServerTime(serverTime: number): void;
  /** Schedules the first heartbeat after a contact (a minute later), replacing a pending one. */
  first(): void;
  /** Schedules the first heartbeat unless one is pending. */
  ensure(): void;
}

// A start or activation is itself a contact: the first heartbeat goes a minute later.
const firstSeconds = 60;
// Whatever next_after says (or a clock far off), never more often than this, nor less than daily.
const minSeconds = 30;
const maxSeconds = 86_400;

/**
 * Paces heartbeats: `next_after` is server time, so the wait is measured against the server's clock as
 * estimated from the last signed answer (a device clock hours off neither floods the server nor lets the
 * seat be reclaimed). Failures back off on their own counter (honouring `Retry-After`), and a refused
 * heartbeat asks for a validation instead of being retried.
 *
 * @param options - Timers, clocks and callbacks of the client.
 * @returns The pacer.
 * @example
 * ```ts
 * const heartbeats = createHeartbeatPacer({ timers, now, random, mayRun, send, onNoSeat, onError });
 * heartbeats.learnServerTime(ticket.serverTime);
 * heartbeats.first();
 * ```
 */
export function createHeartbeatPacer(options: HeartbeatPacerOptions): HeartbeatPacer {
  // Server time minus device time (seconds); 0 until a signed answer told us.
  let offset = 0;
  let failures = 0;
  const at = (delayMs: number) => {
    if (options.mayRun()) options.timers.set('heartbeat', delayMs, () => options.queue(beat));
  };
  const after = (seconds: number) => at(Math.min(Math.max(minSeconds, seconds), maxSeconds) * 1000);
  const beat = async () => {
    try {
      const answer = await options.send();
      if (answer === undefined) return;
      failures = 0;
      if (answer.ok) after(answer.nextAfter - (options.now() + offset));
      else options.onNoSeat();
    } catch (error) {
      options.onError(error);
      const failure = classifyFailure(error);
      if (failure.kind === 'refused') return options.onNoSeat();
      failures += 1;
      at(retryDelayMs(failures, options.random(), failure.retryAfterSeconds));
    }
  };
  return {
    learnServerTime(serverTime) {
      offset = serverTime - options.now();
    },
    first: () => after(firstSeconds),
    ensure() {
      if (!options.timers.has('heartbeat')) after(firstSeconds);
    },
  };
}
