// Embeds the Tollgate payment gateway in an existing Express app, under /pay, next to the app's own
// routes: one database, `createGateway`, `workers.start()`. Then it proves the parts that matter: a
// merchant registers with a webhook, a payer pays a ref with the official x402 client, the payment
// settles on chain, and the merchant's webhook receives the signed notification.
//
//   npm run example -- embed-gateway-express
//
// Self-contained: it starts a local chain (anvil with test USDC and a self-hosted x402 facilitator, from
// `@tollgate/gateway-server/devchain`) and an embedded PGlite database in a temp dir, and removes both.
// In your app: open your PostgreSQL (`@tollgate/core/pg`), point `facilitator` at a real facilitator and
// `networks` at real chains; the rest stays as it is here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { coreMigrations, createGateway, createHttpFacilitator, createNetworkRegistry, createRpcClients, deriveGatewayKeys, gatewayMigrations, runMigrations, systemClock, verifyNotification } from '@tollgate/core';
import { createNodeNotificationTransport, toExpress } from '@tollgate/core/node';
import { createPgliteClient } from '@tollgate/core/pglite';
import { startDevStack } from '@tollgate/gateway-server/devchain';

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-embed-'));
  const chain = await startDevStack({ dataDir: join(dir, 'chain'), persistBeforeAnswer: false });
  const sql = await createPgliteClient({ dataDir: join(dir, 'db') });
  const closers: (() => Promise<unknown> | void)[] = [() => chain.stop(), () => sql.close(), () => rmSync(dir, { recursive: true, force: true })];
  try {
    for (const migrations of [coreMigrations, gatewayMigrations]) await runMigrations(sql, migrations);

    // The merchant's webhook receiver (in real life: the merchant's own server).
    const notifications: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => (notifications.push({ body, headers: request.headers }), response.writeHead(204).end()));
    });
    const receiverUrl = await listen(receiver);
    closers.unshift(() => new Promise((done) => receiver.close(done)));

    // The existing app, with a route of its own; the gateway goes under /pay.
    const app = express();
    app.get('/hello', (_request, response) => void response.json({ hello: 'world' }));
    const server = createServer(app);
    const appUrl = await listen(server);
    closers.unshift(() => new Promise((done) => server.close(done)));

    const toLocalReceiver = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    const networks = createNetworkRegistry({ localUsdc: chain.usdc.address });
    const rpc = createRpcClients(networks, { local: chain.rpcUrl });
    const signer = privateKeyToAccount(generatePrivateKey()); // In production: a kept key; its address signs receipts.
    const gateway = createGateway({
      sql,
      keys: deriveGatewayKeys(crypto.getRandomValues(new Uint8Array(32))), // In production: a kept 32-byte secret.
      networks,
      publicUrl: `${appUrl}/pay`,
      clock: systemClock,
      payments: { signer, facilitator: createHttpFacilitator({ url: chain.facilitatorUrl }), chain: (network) => rpc.forNetwork(network.name) },
      // Merchant webhooks go out through this transport. Here it carries them to the demo's local receiver
      // instead of the internet; in production it is just `createNodeNotificationTransport()`.
      workers: { notifications: { transport: { post: (_url, request) => toLocalReceiver.post(new URL(receiverUrl), request) }, pollIntervalMs: 100 } },
    });
    app.use('/pay', toExpress(gateway.table));
    gateway.workers.start();
    closers.unshift(() => gateway.close());
    console.log(`app on ${appUrl}: /hello is the app's, /pay/* the gateway's`);

    // A merchant registers with a webhook: challenge → sign with its wallet → register.
    const call = async <T>(method: string, path: string, body?: unknown, apiKey?: string): Promise<T> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
      const response = await fetch(`${appUrl}/pay${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      if (!response.ok) throw new Error(`${method} /pay${path} → ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    const merchant = privateKeyToAccount(generatePrivateKey());
    const webhookUrl = 'https://hooks.example.com/tollgate'; // Webhooks must be public HTTPS URLs.
    const challenge = await call<{ challengeId: string; signingMessage: string }>('POST', '/merchant/challenge', { payTo: merchant.address, network: 'local', action: 'merchant.register', webhookUrl });
    const signature = await merchant.signMessage({ message: challenge.signingMessage });
    const { apiKey, notifyHmacKey, notifyHmacKeyId } = await call<{ apiKey: string; notifyHmacKey: string; notifyHmacKeyId: string }>('POST', '/merchant/register', { challengeId: challenge.challengeId, payTo: merchant.address, network: 'local', label: 'Shop', webhookUrl, signature });
    const ref = await call<{ refId: string; snapshot: { resource: string } }>('POST', '/ref', { payTo: merchant.address, network: 'local', amount: '10000', label: 'Order 1' }, apiKey);
    console.log(`ref ${ref.refId}: pay at ${ref.snapshot.resource}`);

    // A payer pays it with the official x402 client (test USDC on the local chain).
    const payer = privateKeyToAccount(chain.payer.privateKey);
    const client = x402Client.fromConfig({ schemes: [{ network: chain.network, client: new ExactEvmScheme(payer) }], spendControls: { allowedAssets: [{ network: chain.network, asset: chain.usdc.address }] } });
    const paid = await wrapFetchWithPayment(fetch, client)(ref.snapshot.resource);
    const settlement = (await paid.json()) as { success?: boolean; transaction?: string };
    if (paid.status !== 200 || settlement.success !== true) throw new Error(`not settled: ${paid.status} ${JSON.stringify(settlement)}`);
    console.log(`settled on chain: ${settlement.transaction}`);

    // The notification worker delivers the signed webhook; the merchant verifies it with its notify key.
    for (let waited = 0; notifications.length === 0; waited += 100) {
      if (waited > 30_000) throw new Error('no notification within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [delivered] = notifications;
    // Throws NotificationSignatureError unless one of the merchant's keys signed this exact body, recently.
    verifyNotification({ body: delivered!.body, headers: delivered!.headers, keys: { [notifyHmacKeyId]: notifyHmacKey }, now: Math.floor(Date.now() / 1000) });
    const event = JSON.parse(delivered!.body) as { event: string };
    if (!delivered!.body.includes(ref.refId)) throw new Error(`the notification is not about ${ref.refId}: ${delivered!.body}`);
    console.log(`notification delivered and verified: ${event.event} for ${ref.refId}`);
    console.log(`the app's own route still answers: ${JSON.stringify(await (await fetch(`${appUrl}/hello`)).json())}`);
  } finally {
    for (const close of closers) await close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
