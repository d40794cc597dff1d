// Child-process helpers of pack-check, and where the repository is.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: every path pack-check reads from the workspace is relative to it. */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Runs a command; resolves with its output, rejects (with the output) on a non-zero exit or the timeout.
 * @param {string} command @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string | undefined>, timeoutMs?: number }} options
 * @returns {Promise<string>}
 */
export function run(command, args, { cwd, env = {}, timeoutMs = 120_000 }) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(output);
      else reject(new Error(`${command} ${args.join(' ')} → ${signal ?? `exit ${code}`}\n${output}`));
    });
  });
}
