/**
 * Helpers the benchmark server processes (`servers.ts`, `evidence-servers.ts`) share. They live here
 * because `servers.ts` starts its servers on import, so nothing can import from it.
 */
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/** The price of every bench ref and route, in USDC base units (0.01 USDC). */
export const amount = '10000';

/**
 * Serves `app` on a free local port, with keep-alive long enough that load connections are reused.
 *
 * @example
 * ```ts
 * const bare = await listen(express());
 * await bare.close();
 * ```
 */
export function listen(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
    server.keepAliveTimeout = 60_000;
  });
}

async function json(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * Registers a fresh merchant on `local` through the gateway's public API and creates one fixed ref for
 * {@link amount}: returns the ref's full URL (`/receive/…?ref=…`).
 *
 * @example
 * ```ts
 * const paidUrl = await payableRef(gateway.url);
 * ```
 */
export async function payableRef(gatewayUrl: string): Promise<string> {
  const merchant = privateKeyToAccount(generatePrivateKey());
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    json(`${gatewayUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const challenge = await post('/merchant/challenge', { payTo: merchant.address, network: 'local', action: 'merchant.register' });
  const registered = await post('/merchant/register', {
    challengeId: challenge['challengeId'],
    payTo: merchant.address,
    network: 'local',
    label: 'Bench shop',
    signature: await merchant.signMessage({ message: challenge['signingMessage'] as string }),
  });
  const ref = await post('/ref', { payTo: merchant.address, network: 'local', amount }, { authorization: `Bearer ${registered['apiKey'] as string}` });
  const resource = new URL((ref['snapshot'] as { resource: string }).resource);
  return `${gatewayUrl}${resource.pathname}${resource.search}`;
}

/**
 * Prints `targets` as the one JSON line the parent reads (`startBenchChild`), then serves until the
 * parent closes stdin: `stop` runs, and the process exits.
 *
 * @example
 * ```ts
 * serveUntilStdinCloses(targets, () => bare.close());
 * ```
 */
export function serveUntilStdinCloses(targets: unknown, stop: () => Promise<void>): void {
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await stop();
    process.exit(0);
  });
}
