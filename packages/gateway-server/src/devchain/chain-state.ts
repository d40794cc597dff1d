import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * Where the atomic snapshots of a state file go: next to it, `<name>.snapshot.json`. anvil itself writes
 * `statePath` on a graceful exit, in place (a kill during that write leaves half a file); the snapshots
 * are written by us through a temporary file and a rename, so one of the two is always whole.
 *
 * @param statePath - anvil's state file.
 * @returns The snapshot file path.
 * @example
 * ```ts
 * snapshotPathOf('.tollgate/devchain/chain/anvil-state.json'); // '.tollgate/devchain/chain/anvil-state.snapshot.json'
 * ```
 */
export function snapshotPathOf(statePath: string): string {
  return join(dirname(statePath), `${basename(statePath).replace(/\.json$/, '')}.snapshot.json`);
}

/** A state file anvil can load, as {@link chooseStateFile} judged it. */
export type StateFileCandidate =
  | { readonly path: string; readonly kind: 'valid'; readonly bestBlock: bigint }
  | { readonly path: string; readonly kind: 'missing' }
  | { readonly path: string; readonly kind: 'unreadable'; readonly reason: string };

function inspect(path: string): StateFileCandidate {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, kind: 'missing' };
    return { path, kind: 'unreadable', reason: String(error) };
  }
  try {
    const state = JSON.parse(text) as { best_block_number?: unknown };
    const best = state.best_block_number;
    if (typeof best !== 'string' && typeof best !== 'number') return { path, kind: 'unreadable', reason: 'no best_block_number' };
    return { path, kind: 'valid', bestBlock: BigInt(best) };
  } catch (error) {
    // Typically a kill during anvil's own (non-atomic) exit dump.
    return { path, kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Picks the state to start anvil from: of anvil's exit dump (`statePath`) and our last atomic snapshot,
 * the whole one with the highest block; on a tie the exit dump (it also holds changes made without a
 * block, such as `anvil_setBalance`). A half-written file is skipped, never loaded (anvil would refuse
 * to start on it).
 *
 * @param statePath - anvil's state file.
 * @returns The file to load (`undefined` on a fresh chain) and what was found, for reporting.
 * @example
 * ```ts
 * const { load } = chooseStateFile('.tollgate/devchain/chain/anvil-state.json');
 * ```
 */
export function chooseStateFile(statePath: string): { load: string | undefined; candidates: StateFileCandidate[] } {
  const candidates = [inspect(statePath), inspect(snapshotPathOf(statePath))];
  let best: Extract<StateFileCandidate, { kind: 'valid' }> | undefined;
  for (const candidate of candidates) {
    if (candidate.kind === 'valid' && (best === undefined || candidate.bestBlock > best.bestBlock)) best = candidate;
  }
  return { load: best?.path, candidates };
}

/** One JSON-RPC call with a deadline; throws on transport errors and RPC errors. */
export async function rpcCall<T>(rpcUrl: string, method: string, params: unknown[] = [], timeoutMs = 10_000): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: T; error?: { message?: string } };
  if (body.error !== undefined) throw new Error(`${method} failed: ${body.error.message ?? 'unknown error'}`);
  return body.result as T;
}

/** Writes `data` to `path` so that a reader (or a crash) only ever sees the old or the new file whole. */
export function writeFileAtomically(path: string, data: string | Uint8Array): void {
  const temporary = `${path}.tmp-${process.pid}`;
  const fd = openSync(temporary, 'w');
  try {
    if (typeof data === 'string') writeSync(fd, data);
    else writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  // The rename itself must reach the disk too.
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Some platforms (Windows) cannot open a directory; the rename is still atomic there.
  }
}

/**
 * Asks anvil for its whole state (`anvil_dumpState`, gzip) and writes it, uncompressed, in the format
 * `--load-state` reads, atomically to the snapshot path of `statePath`.
 *
 * @param rpcUrl - anvil's endpoint.
 * @param statePath - anvil's state file (the snapshot goes next to it).
 * @returns The best block of the snapshot.
 * @throws Error when anvil does not answer (it died): the state since the last snapshot is then lost.
 */
export async function writeStateSnapshot(rpcUrl: string, statePath: string): Promise<bigint> {
  const hex = await rpcCall<string>(rpcUrl, 'anvil_dumpState');
  const json = gunzipSync(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
  const best = (JSON.parse(json.toString('utf8')) as { best_block_number: string | number }).best_block_number;
  writeFileAtomically(snapshotPathOf(statePath), json);
  return BigInt(best);
}

/**
 * Coalesces snapshot requests: at most one runs, and a request made while one runs is served by the
 * next one (which started after the request, so it holds everything the requester saw). N concurrent
 * settlements cost at most two dumps, not N.
 *
 * @param take - Takes one snapshot.
 * @returns `request()`: resolves once a snapshot that started after the call finished.
 */
export function createSnapshotCoalescer(take: () => Promise<bigint>): { request(): Promise<bigint> } {
  let running: Promise<bigint> | undefined;
  let queued: Promise<bigint> | undefined;
  const start = (): Promise<bigint> => {
    const current = take().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };
  return {
    request() {
      if (running === undefined) return start();
      queued ??= running
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return start();
        });
      return queued;
    },
  };
}

/**
 * The transactions among `hashes` the node does not have (no receipt): after a restart from a state
 * file, these were lost with the node. The gateway can call it with the settled payments it recorded.
 *
 * @param rpcUrl - JSON-RPC endpoint.
 * @param hashes - Transaction hashes.
 * @returns The missing ones, in input order.
 * @throws Error when the node does not answer.
 * @example
 * ```ts
 * import { findMissingTransactions } from '@tollgate/gateway-server/devchain';
 * const missing = await findMissingTransactions(rpcUrl, settledTxHashes);
 * if (missing.length > 0) console.error('the dev chain lost settled payments', missing);
 * ```
 */
export async function findMissingTransactions(rpcUrl: string, hashes: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const hash of hashes) {
    const receipt = await rpcCall<unknown>(rpcUrl, 'eth_getTransactionReceipt', [hash]);
    if (receipt === null || receipt === undefined) missing.push(hash);
  }
  return missing;
}
