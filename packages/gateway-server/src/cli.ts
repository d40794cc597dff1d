#!/usr/bin/env node
import { ConfigError } from '@tollgate/core';
import { gatewayUsage, parseGatewayCliArguments } from './cli-usage';
import { runGatewayFromEnv } from './server';

// `tollgate-gateway`: serves the gateway with configuration from the environment.
const command = parseGatewayCliArguments(process.argv.slice(2));
if (command.kind === 'help') {
  process.stdout.write(gatewayUsage);
} else if (command.kind === 'unknown') {
  process.stderr.write(`tollgate-gateway: unknown argument ${JSON.stringify(command.argument)}\n\n${gatewayUsage}`);
  process.exitCode = 2;
} else {
  runGatewayFromEnv().catch((error: unknown) => {
    process.stderr.write(`tollgate-gateway: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
