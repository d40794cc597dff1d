import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A POSIX shell wrapper that ties the wrapped program's life to ours. It starts the program, then
 * blocks on the pipe it got as stdin; when this Node process dies for any reason (even SIGKILL) the
 * kernel closes that pipe, the read returns and the wrapper terminates the program. SIGTERM/SIGINT
 * sent to the wrapper are forwarded, and the wrapper exits with the program's status.
 */
const GUARD_SCRIPT = `
exec 3<&0
"$@" 3<&- </dev/null &
child=$!
( read -r _ <&3; kill -TERM "$child" 2>/dev/null ) &
watchdog=$!
exec 3<&-
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
while :; do
  wait "$child"
  status=$?
  kill -0 "$child" 2>/dev/null || break
done
kill "$watchdog" 2>/dev/null
exit "$status"
`;

const STDERR_TAIL_BYTES = 4096;

/** A child process that cannot outlive this Node process. */
export interface GuardedProcess {
  /** The spawned process (the shell guard on POSIX, the program itself on Windows). */
  readonly child: ChildProcess;
  /** Resolves once the process has exited; never rejects. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True after the process exited. */
  hasExited(): boolean;
  /** The last few KiB the program wrote to stderr, for error messages. */
  stderrTail(): string;
  /**
   * Sends SIGTERM and waits for exit; after `graceMs` it escalates to SIGKILL. Idempotent: later calls
   * return the same promise.
   */
  terminate(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

// Covers normal exit, process.exit() and uncaught exceptions. Hard deaths (SIGKILL) are covered by the
// shell guard's stdin pipe.
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGTERM');
  });
}

/**
 * Spawns `command` so that it never outlives this process: under a shell guard on POSIX, and with an
 * exit hook everywhere.
 *
 * @param command - Absolute path of the program.
 * @param args - Its arguments.
 * @param options - `forwardStdout` pipes the program's stdout to ours (otherwise it is discarded).
 * @returns The guarded process handle.
 * @example
 * ```ts
 * import { spawnGuarded } from './child-process';
 * const proc = spawnGuarded('/usr/bin/sleep', ['60']);
 * await proc.terminate();
 * ```
 */
export function spawnGuarded(command: string, args: readonly string[], options: { forwardStdout?: boolean } = {}): GuardedProcess {
  installExitHook();
  const stdio: ['pipe', 'inherit' | 'ignore', 'pipe'] = ['pipe', options.forwardStdout ? 'inherit' : 'ignore', 'pipe'];
  const child =
    process.platform === 'win32'
      ? spawn(command, [...args], { stdio, windowsHide: true })
      : spawn('/bin/sh', ['-c', GUARD_SCRIPT, 'tollgate-guard', command, ...args], { stdio });
  live.add(child);

  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  // The pipe only signals our death; nothing is ever written. Ignore EPIPE once the child is gone.
  child.stdin?.on('error', () => undefined);

  let exited = false;
  const exitedPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.once('error', (error) => {
      tail = (tail + String(error)).slice(-STDERR_TAIL_BYTES);
      exited = true;
      live.delete(child);
      resolveExit({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => {
      exited = true;
      live.delete(child);
      resolveExit({ code, signal });
    });
  });

  let termination: Promise<void> | undefined;
  return {
    child,
    exited: exitedPromise,
    hasExited: () => exited,
    stderrTail: () => tail,
    terminate(graceMs = 5_000) {
      termination ??= (async () => {
        if (exited) return;
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const escalated = new Promise<void>((resolveTimer) => {
          timer = setTimeout(() => {
            // Closing stdin also makes the guard's watchdog terminate the program.
            child.stdin?.destroy();
            child.kill('SIGKILL');
            resolveTimer();
          }, graceMs);
        });
        await Promise.race([exitedPromise, escalated]);
        clearTimeout(timer);
        await exitedPromise;
      })();
      return termination;
    },
  };
}
