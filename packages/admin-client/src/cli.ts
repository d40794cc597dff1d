#!/usr/bin/env node
import { runAdminCli } from './cli/run-cli';

// `tollgate-admin`: the Admin API from the shell, for ops scripts (src/cli/run-cli.ts).

// `tollgate-admin … | head` closes the pipe early: stop quietly instead of dying on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

/** Writes to stdout, waiting for the pipe to drain when it is full, so an export never buffers in memory. */
function writeStdout(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return undefined;
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

runAdminCli(process.argv.slice(2), {
  env: process.env,
  stdout: writeStdout,
  stderr: (text) => void process.stderr.write(text),
}).then((status) => {
  process.exitCode = status;
});
