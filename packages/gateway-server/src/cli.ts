#!/usr/bin/env node
import { ConfigError } from '@tollgate/core';
import { runGatewayFromEnv } from './server';

// `tollgate-gateway`: serves the gateway with configuration from the environment.
runGatewayFromEnv().catch((error: unknown) => {
  process.stderr.write(`tollgate-gateway: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
