/**
 * Runs the real `tollgate-admin` executable in a child process, bundled once from source the way its
 * bin file bundles it (scripts/dev-build.mjs). Asynchronous on purpose: the license server under test
 * lives in this process, so a synchronous spawn would block it from answering.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { devBuild } from '../../../../scripts/dev-build.mjs';

/** What one run printed and returned. */
export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A bundled CLI and a way to run it. */
export interface CliRunner {
  run(args: readonly string[], env?: Readonly<Record<string, string | undefined>>): Promise<CliRun>;
  /** Every byte any run printed, to check that a secret never appeared. */
  readonly transcript: string[];
  dispose(): void;
}

/**
 * Bundles src/cli.ts of the admin client and returns a runner whose environment starts from `baseEnv`
 * (the parent's `TOLLGATE_ADMIN_*` variables are never inherited).
 *
 * @param name - A name for the bundle file.
 * @param baseEnv - Variables every run gets (server URL, token), overridable per run (`undefined` removes).
 */
export async function openCliRunner(name: string, baseEnv: Readonly<Record<string, string | undefined>>): Promise<CliRunner> {
  const bundle = await devBuild('packages/admin-client/src/cli.ts', `.tollgate/build/tollgate-admin-${name}-${process.pid}.mjs`);
  const transcript: string[] = [];
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TOLLGATE_ADMIN_')));
  return {
    transcript,
    run: (args, env = {}) =>
      new Promise((resolve, reject) => {
        const merged = Object.fromEntries(Object.entries({ ...inherited, ...baseEnv, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined));
        const child = spawn(process.execPath, [bundle, ...args], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (status) => {
          transcript.push(stdout, stderr);
          resolve({ status, stdout, stderr });
        });
      }),
    dispose: () => rmSync(bundle, { force: true }),
  };
}
