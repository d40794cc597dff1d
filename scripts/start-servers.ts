// What `npm start` runs (bundled by scripts/start.mjs): both servers on the embedded defaults (the gateway
// with its local dev chain), a banner with everything needed to try them, stopped together and gracefully
// on SIGTERM/SIGINT.
import { ConfigError } from '@tollgate/core';
import { onShutdownSignal } from '@tollgate/core/node';
import { loadGatewayConfig, startGatewayServer, type GatewayConfig, type RunningGateway } from '@tollgate/gateway-server';
import { loadLicenseConfig, startLicenseServer, type RunningLicenseServer } from '@tollgate/license-server';

/** The dev chain part of the banner: its URLs, the token and the demo payer, or why it is off. */
function devChainLines(gateway: RunningGateway, config: GatewayConfig): string[] {
  const dev = gateway.context.devChain;
  if (dev === undefined) {
    const why = config.production ? 'NODE_ENV=production' : config.facilitatorUrl !== undefined ? 'GATEWAY_FACILITATOR_URL is set' : 'GATEWAY_DEV_CHAIN=0 or a local chain is configured';
    return [`Local dev chain: off (${why}).`];
  }
  // The command is copy-pasteable: it names the data dir when it is not the default one.
  const dataDirPrefix = config.dataDir === '.tollgate' ? '' : `TOLLGATE_DATA_DIR=${config.dataDir} `;
  return [
    'Local dev chain (GATEWAY_DEV_CHAIN=0 turns it off):',
    `  chain RPC     ${dev.rpcUrl}   (network "local", ${dev.network})`,
    `  facilitator   ${dev.facilitatorUrl}   (self-hosted x402: /verify /settle /supported)`,
    `  test USDC     ${dev.usdc}`,
    `  demo payer    ${dev.payer.address}   (holds test USDC, no ETH)`,
    `  payer key     ${dev.payer.privateKey}`,
    '                ^ a PUBLIC dev key (anvil test account): never use it for real funds',
    `  chain state   ${dev.statePath}`,
    '',
    'Pay a demo ref (registers a merchant, creates a ref, pays it with @x402/fetch, verifies the receipt):',
    `  ${dataDirPrefix}npm run example -- pay-a-ref`,
    '',
    'Order, pay, refund and verify the refund (order mode is on in dev mode; set GATEWAY_ORDER_MODE=off to turn it off):',
    `  ${dataDirPrefix}npm run example -- order-and-refund`,
  ];
}

async function main(): Promise<void> {
  const gatewayConfig = loadGatewayConfig(process.env);
  const licenseConfig = loadLicenseConfig(process.env);
  // The license server's dev-root lines go into the banner instead of being printed on their own.
  let licenseDevRoot: string | undefined;
  const started = await Promise.allSettled([
    startGatewayServer(gatewayConfig),
    startLicenseServer(licenseConfig, { print: (text) => (licenseDevRoot = text) }),
  ]);
  const [gatewayStart, licenseStart] = started;
  if (gatewayStart.status === 'rejected' || licenseStart.status === 'rejected') {
    // Whichever did start is stopped, so a failed start leaves no anvil or database lock behind.
    await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
    throw gatewayStart.status === 'rejected' ? gatewayStart.reason : (licenseStart as PromiseRejectedResult).reason;
  }
  const gateway: RunningGateway = gatewayStart.value;
  const license: RunningLicenseServer = licenseStart.value;
  process.stdout.write(
    [
      '',
      'Tollgate is running:',
      `  gateway  ${gateway.url}   (health: ${gateway.url}/healthz)`,
      `  license  ${license.url}   (health: ${license.url}/health)`,
      `  data     ${gatewayConfig.dataDir}/ (${gateway.database.engine})`,
      '',
      ...devChainLines(gateway, gatewayConfig),
      ...(licenseDevRoot === undefined ? [] : ['', ...licenseDevRoot.split('\n')]),
      '',
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
