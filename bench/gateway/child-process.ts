/**
 * Starts a bench server process: bundles a TypeScript entry of this workspace (scripts/dev-build.mjs),
 * runs it with extra environment, and reads the JSON of its first stdout line (what it serves). The
 * child serves until its stdin closes. Every bench whose servers run in another process (so the load
 * generator does not share their event loop) starts them with it.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/** A running bench child: what it printed, and how to stop it. */
export interface BenchChild<T> {
  readonly targets: T;
  stop(): Promise<void>;
}

/**
 * Bundles `entry` to `outFile` and starts it with `env` added to this process's environment.
 *
 * @example
 * ```ts
 * const chain = await startBenchChild<FacilitatorTargets>('bench/gateway/facilitators.ts', '.tollgate/build/bench/gateway-facilitators.mjs', {});
 * await chain.stop();
 * ```
 */
export async function startBenchChild<T>(entry: string, outFile: string, env: Record<string, string>): Promise<BenchChild<T>> {
  // Loaded at run time (not bundled into the bench) so it resolves paths from the repository root.
  const { devBuild } = (await import(pathToFileURL(resolve('scripts/dev-build.mjs')).href)) as typeof import('../../scripts/dev-build.mjs');
  const bundle = await devBuild(entry, outFile);
  // BENCH_PROF=1 writes a CPU profile of each child to .tollgate/prof when it exits.
  const profile = process.env['BENCH_PROF'] === '1' ? ['--cpu-prof', `--cpu-prof-dir=${resolve('.tollgate/prof')}`] : [];
  const child = spawn(process.execPath, [...profile, bundle], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const firstLine = await new Promise<string>((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', done);
    child.once('exit', (code) => fail(new Error(`${entry} exited with ${code}`)));
  });
  return {
    targets: JSON.parse(firstLine) as T,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * Starts the chain and facilitators (`facilitators.ts`) in one child and the servers under test
 * (`entry`, which reads the facilitators' targets from `BENCH_FACILITATORS`) in another; stopping stops
 * both, servers first. If the servers fail to start, the chain is stopped before the error is rethrown.
 *
 * @example
 * ```ts
 * const servers = await startBenchServers<BenchTargets>('bench/gateway/servers.ts', '.tollgate/build/bench/gateway-servers.mjs');
 * await servers.stop();
 * ```
 */
export async function startBenchServers<T>(entry: string, outFile: string): Promise<BenchChild<T>> {
  const chain = await startBenchChild<unknown>('bench/gateway/facilitators.ts', '.tollgate/build/bench/gateway-facilitators.mjs', {});
  try {
    const servers = await startBenchChild<T>(entry, outFile, { BENCH_FACILITATORS: JSON.stringify(chain.targets) });
    return {
      targets: servers.targets,
      stop: async () => {
        await servers.stop();
        await chain.stop();
      },
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}
