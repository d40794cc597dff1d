#!/usr/bin/env node
import { runLicenseCli } from './cli/run-cli';

// `tollgate-license`: serves the license service (the default) or runs a key ceremony step.
runLicenseCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((status) => {
  if (status !== undefined) process.exitCode = status;
});
