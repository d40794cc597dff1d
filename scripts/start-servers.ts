// What `npm start` runs (bundled by scripts/start.mjs): both servers on the embedded defaults, stopped
// together and gracefully on SIGTERM/SIGINT.
import { ConfigError } from '@tollgate/core';
import { onShutdownSignal } from '@tollgate/core/node';
import { loadGatewayConfig, startGatewayServer } from '@tollgate/gateway-server';
import { loadLicenseConfig, startLicenseServer } from '@tollgate/license-server';

async function main(): Promise<void> {
  const gatewayConfig = loadGatewayConfig(process.env);
  const licenseConfig = loadLicenseConfig(process.env);
  const [gateway, license] = await Promise.all([startGatewayServer(gatewayConfig), startLicenseServer(licenseConfig)]);
  process.stdout.write(
    [
      '',
      'Tollgate is running:',
      `  gateway  ${gateway.url}   (health: ${gateway.url}/healthz)`,
      `  license  ${license.url}   (health: ${license.url}/health)`,
      `  data     ${gatewayConfig.dataDir}/ (${gateway.database.engine})`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n') + '\n',
  );
  onShutdownSignal(async () => {
    await Promise.all([gateway.close(), license.close()]);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`tollgate: ${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
