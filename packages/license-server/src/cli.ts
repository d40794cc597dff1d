#!/usr/bin/env node
import { ConfigError } from '@tollgate/core';
import { runLicenseFromEnv } from './server';

// `tollgate-license`: serves the license service with configuration from the environment.
runLicenseFromEnv().catch((error: unknown) => {
  process.stderr.write(`tollgate-license: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
