import { TollgateError } from '../errors/base';

/** What went wrong talking to the node. */
export type ChainReadFailure = 'timeout' | 'transport' | 'rpc';

/**
 * A chain read failed: the node timed out, could not be reached, or answered with a JSON-RPC error
 * (including a reverted `eth_call`). Its code is the gateway's `rpc_unavailable`, so
 * `renderGatewayError` renders it as 503 with `retry-after` and no extra mapping. `details` carries `operation` (`eth_getLogs`, …) and `failure`; the cause
 * keeps the underlying viem error for logs.
 *
 * @example
 * ```ts
 * import { ChainReadError, findAuthorizationSettlement } from '@tollgate/core/chain';
 * try { await findAuthorizationSettlement(params); }
 * catch (e) { if (e instanceof ChainReadError) console.log(e.code, e.details.failure); } // rpc_unavailable timeout
 * ```
 */
export class ChainReadError extends TollgateError {
  override readonly name: string = 'ChainReadError';
  declare readonly code: 'rpc_unavailable';
  declare readonly details: { operation: string; failure: ChainReadFailure };
  /** Seconds a client should wait before retrying (read by the gateway renderer). */
  readonly retryAfterSeconds = 5;

  constructor(operation: string, failure: ChainReadFailure, cause: unknown) {
    const why = failure === 'timeout' ? 'timed out' : failure === 'transport' ? 'could not reach the node' : 'was refused by the node';
    super('rpc_unavailable', `Chain read ${operation} ${why}.`, { details: { operation, failure }, cause });
  }
}

function classify(error: unknown): ChainReadFailure {
  // viem errors carry a stable `name`; walk the cause chain because actions wrap transport errors.
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current.name === 'TimeoutError' || current.name === 'AbortError') return 'timeout';
    if (current.name === 'HttpRequestError' || current.name === 'WebSocketRequestError' || current.name === 'SocketClosedError') return 'transport';
  }
  return 'rpc';
}

/**
 * Runs one chain read with a deadline and turns any failure into a {@link ChainReadError}.
 *
 * @param operation - JSON-RPC method name, used in the error.
 * @param timeoutMs - Deadline for this read.
 * @param read - The read.
 * @returns Its result.
 * @throws ChainReadError on any failure or when the deadline passes first.
 * @example
 * ```ts
 * import { chainRead } from '@tollgate/core/chain';
 * const head = await chainRead('eth_blockNumber', 5_000, () => client.getBlockNumber());
 * ```
 */
export async function chainRead<T>(operation: string, timeoutMs: number, read: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChainReadError(operation, 'timeout', new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
  });
  try {
    return await Promise.race([read(), deadline]);
  } catch (error) {
    if (error instanceof ChainReadError) throw error;
    throw new ChainReadError(operation, classify(error), error);
  } finally {
    clearTimeout(timer);
  }
}
