import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseStateFile, createSnapshotCoalescer, rpcCall, writeStateSnapshot, type StateFileCandidate } from './chain-state';
import { spawnGuarded, type GuardedProcess } from './child-process';

/** Options of {@link startAnvil}. */
export interface StartAnvilOptions {
  /** TCP port. Default: a free port picked at start. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1` (never expose a dev chain by default). */
  host?: string;
  /** Chain id. Default 31337 (`eip155:31337`). */
  chainId?: number;
  /**
   * File that keeps the chain across restarts: written by anvil when it stops (SIGTERM), and by us as an
   * atomic snapshot next to it (`snapshot()`, `stateIntervalSeconds`, and right before stopping). At
   * start the whole one of the two with the highest block is loaded (see `chooseStateFile`). A hard
   * kill of anvil loses what happened since the last snapshot.
   */
  statePath?: string;
  /**
   * Also snapshot the state every N seconds while running (only when a block was mined since the last
   * one). Our own atomic write, not anvil's `--state-interval`, which rewrites the file in place.
   * Default: only on `snapshot()` and on stop.
   */
  stateIntervalSeconds?: number;
  /** Receives failures of the periodic snapshots (anvil gone, disk full). Default: ignored. */
  onSnapshotError?: (error: unknown) => void;
  /**
   * Prune historical states (`--prune-history <n>`): anvil slows down as history grows. `true` (the
   * default) keeps the 256 most recent states, a number keeps that many, `false` keeps them all.
   * Blocks, receipts and logs stay queryable; `eth_call` works at the kept blocks only, which covers
   * settlement evidence: its reads are pinned to the head block it read, which may be a few blocks old
   * by the time the call arrives.
   */
  pruneHistory?: boolean | number;
  /** Suppress anvil's own output (default true); when false its stdout is forwarded to ours. */
  silent?: boolean;
  /** How long to wait for `eth_chainId` to answer. Default 10 000 ms. */
  startTimeoutMs?: number;
  /** Use this anvil binary instead of the one from the `@foundry-rs/anvil` npm package. */
  binaryPath?: string;
}

/** A running anvil node. */
export interface AnvilInstance {
  /** HTTP JSON-RPC endpoint, e.g. `http://127.0.0.1:41234`. */
  readonly rpcUrl: string;
  /** The port anvil listens on. */
  readonly port: number;
  /** The chain id it reports. */
  readonly chainId: number;
  /** Operating-system process id of the spawned process (the shell guard on POSIX). */
  readonly pid: number | undefined;
  /** Operating-system process id of anvil itself (on POSIX the guard's child), when known. */
  readonly anvilPid: number | undefined;
  /** The state files found at start and the one loaded (`undefined` load: a fresh chain). */
  readonly restoredFrom: { load: string | undefined; candidates: StateFileCandidate[] } | undefined;
  /**
   * Writes an atomic snapshot of the whole chain next to `statePath` and resolves once one that started
   * after this call is on disk; concurrent calls share dumps. Resolves to its best block.
   *
   * @throws Error without `statePath`, or when anvil does not answer (it died).
   */
  snapshot(): Promise<bigint>;
  /** A last snapshot, then SIGTERM (anvil then writes `statePath`), await exit; SIGKILL after 5 s. Idempotent. */
  stop(): Promise<void>;
}

const here = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);

/**
 * Finds the anvil binary shipped by the `@foundry-rs/anvil-<platform>-<arch>` npm package (an optional
 * dependency of `@foundry-rs/anvil`).
 *
 * @returns Absolute path of the binary.
 * @throws Error naming the missing platform package and how to get a binary another way.
 * @example
 * ```ts
 * import { resolveAnvilBinary } from '@tollgate/gateway-server/devchain';
 * console.log(resolveAnvilBinary()); // …/@foundry-rs/anvil-linux-amd64/bin/anvil
 * ```
 */
export function resolveAnvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  let manifest: string;
  try {
    manifest = createRequire(here).resolve(`${pkg}/package.json`);
  } catch (cause) {
    throw new Error(
      `The anvil binary for ${process.platform}/${process.arch} is not installed: npm package ${pkg} is missing. ` +
        'Install @foundry-rs/anvil with optional dependencies, or install Foundry and pass binaryPath.',
      { cause },
    );
  }
  const binary = join(dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`${pkg} is installed but ${binary} does not exist; reinstall it.`);
  return binary;
}

/**
 * Picks a TCP port that is free right now on `host` (the OS chooses; there is a small window before
 * the caller binds it).
 *
 * @param host - Interface to probe.
 * @returns A free port number.
 * @example
 * ```ts
 * import { findFreePort } from '@tollgate/gateway-server/devchain';
 * const port = await findFreePort(); // e.g. 41873
 * ```
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolveFree(false));
    server.listen(port, host, () => server.close(() => resolveFree(true)));
  });
}

async function queryChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === 'string' ? Number.parseInt(body.result, 16) : undefined;
  } catch {
    return undefined;
  }
}

/** Recent states anvil keeps when pruning history (see `StartAnvilOptions.pruneHistory`). */
const keptStates = 256;

function anvilArgs(port: number, host: string, chainId: number, options: StartAnvilOptions, load: string | undefined): string[] {
  const args = ['--port', String(port), '--host', host, '--chain-id', String(chainId)];
  if (options.silent ?? true) args.push('--silent');
  const prune = options.pruneHistory ?? true;
  if (prune !== false) args.push('--prune-history', String(prune === true ? keptStates : prune));
  if (options.statePath !== undefined) args.push('--dump-state', options.statePath);
  if (load !== undefined) args.push('--load-state', load);
  return args;
}

/** anvil's own pid: the single child of the POSIX shell guard (Linux `/proc`), else the spawned pid. */
function programPid(proc: GuardedProcess): number | undefined {
  const guard = proc.child.pid;
  if (guard === undefined || process.platform === 'win32') return guard;
  try {
    const children = readFileSync(`/proc/${guard}/task/${guard}/children`, 'utf8').trim().split(/\s+/).map(Number);
    for (const pid of children) {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]?.endsWith('anvil')) return pid;
    }
  } catch {
    // Not Linux, or the process is gone.
  }
  return undefined;
}

/** The instance over a ready process: snapshots (on demand, periodic, before stopping) and stop. */
function runningInstance(proc: GuardedProcess, rpcUrl: string, port: number, chainId: number, options: StartAnvilOptions, restoredFrom: AnvilInstance['restoredFrom']): AnvilInstance {
  const { statePath } = options;
  const coalescer = createSnapshotCoalescer(() => {
    if (statePath === undefined) return Promise.reject(new Error('This anvil has no statePath to snapshot to.'));
    return writeStateSnapshot(rpcUrl, statePath);
  });
  let timer: NodeJS.Timeout | undefined;
  if (statePath !== undefined && options.stateIntervalSeconds !== undefined) {
    let snapshotBlock: string | undefined;
    let busy = false;
    timer = setInterval(() => {
      if (busy || proc.hasExited()) return;
      busy = true;
      void (async () => {
        try {
          const head = await rpcCall<string>(rpcUrl, 'eth_blockNumber', [], 2_000);
          if (head === snapshotBlock) return;
          await coalescer.request();
          snapshotBlock = head;
        } catch (error) {
          if (!proc.hasExited()) options.onSnapshotError?.(error);
        } finally {
          busy = false;
        }
      })();
    }, options.stateIntervalSeconds * 1_000);
    timer.unref();
  }
  let stopping: Promise<void> | undefined;
  return {
    rpcUrl,
    port,
    chainId,
    pid: proc.child.pid,
    anvilPid: programPid(proc),
    restoredFrom,
    snapshot: () => coalescer.request(),
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(timer);
        // anvil's exit dump is written in place; a whole snapshot first means a kill during it loses nothing.
        if (statePath !== undefined && !proc.hasExited()) await coalescer.request().catch(() => undefined);
        await proc.terminate();
      })()),
  };
}

async function waitUntilReady(proc: GuardedProcess, rpcUrl: string, chainId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.hasExited()) {
      throw new Error(`anvil exited during start-up: ${proc.stderrTail().trim() || 'no output'}`);
    }
    const answered = await queryChainId(rpcUrl);
    if (answered !== undefined && !proc.hasExited()) {
      if (answered !== chainId) throw new Error(`${rpcUrl} answered chain id ${answered}, expected ${chainId}.`);
      return;
    }
    if (Date.now() >= deadline) {
      throw new Error(`anvil did not answer eth_chainId at ${rpcUrl} within ${timeoutMs} ms. ${proc.stderrTail().trim()}`.trim());
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 20));
  }
}

/**
 * Starts a local anvil node from the `@foundry-rs/anvil` npm package and resolves once it answers
 * JSON-RPC. The process cannot outlive ours (shell guard + exit hook), `stop()` waits for it to exit.
 *
 * @param options - Port, host, chain id, persistence and start-up bounds.
 * @returns The running node.
 * @throws Error when the binary is missing, the port is taken, anvil exits early or does not answer
 *   within `startTimeoutMs`.
 * @example
 * ```ts
 * import { startAnvil } from '@tollgate/gateway-server/devchain';
 * const anvil = await startAnvil({ statePath: '.tollgate/chain/state.json' });
 * console.log(anvil.rpcUrl);
 * await anvil.stop();
 * ```
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const host = options.host ?? '127.0.0.1';
  const chainId = options.chainId ?? 31337;
  const binary = options.binaryPath ?? resolveAnvilBinary();
  if (options.statePath !== undefined) mkdirSync(dirname(options.statePath), { recursive: true });
  const restoredFrom = options.statePath === undefined ? undefined : chooseStateFile(options.statePath);

  // With a caller-chosen port, a node already listening there would answer our readiness probe;
  // refuse up front. With a picked port, retry when another process grabbed it in between.
  if (options.port !== undefined && !(await isPortFree(options.port, host))) {
    throw new Error(`Cannot start anvil: port ${options.port} on ${host} is already in use.`);
  }
  const attempts = options.port === undefined ? 3 : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await findFreePort(host));
    const rpcUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const proc = spawnGuarded(binary, anvilArgs(port, host, chainId, options, restoredFrom?.load), { forwardStdout: options.silent === false });
    try {
      await waitUntilReady(proc, rpcUrl, chainId, options.startTimeoutMs ?? 10_000);
      return runningInstance(proc, rpcUrl, port, chainId, options, restoredFrom);
    } catch (error) {
      lastError = error;
      await proc.terminate(1_000);
      if (!/address already in use/i.test(proc.stderrTail())) break;
    }
  }
  throw lastError;
}
