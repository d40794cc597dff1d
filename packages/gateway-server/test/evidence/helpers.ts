// Shared helpers of the chain-evidence tests: a gateway on a real anvil chain with generous evidence
// limits, real payments whose settlement bodies carry the receipts, raw anvil RPC (mining, reorgs,
// automine), and an RPC proxy in front of anvil that records every JSON-RPC call and can stop
// answering (a blackhole) to inject faults.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EIP712SignedReceipt } from '@x402/extensions/offer-receipt';
import { createWalletClient, encodeFunctionData, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccountKeys, devChainDefinition, devTransport, testUsdcArtifact } from '@tollgate/gateway-server/devchain';
import type { PaymentReceipt } from '@tollgate/core';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/gateway';
import { demoPayer, officialFetch, payableRef, type PayableRef, type PaymentStack } from '../helpers/payments';

/** Evidence limits no ordinary test reaches (the rate-limit tests set their own). */
export const relaxedEvidenceLimits = {
  GATEWAY_RATE_LIMIT_VERIFY_RECEIPT: '1000000/86400',
  GATEWAY_RATE_LIMIT_TX: '1000000/86400',
  GATEWAY_RATE_LIMIT_TXS: '1000000/86400',
  GATEWAY_RATE_LIMIT_RECOVER_SETTLEMENT: '1000000/86400',
};

/** A gateway settling on `stack`, with relaxed evidence limits; `env` overrides anything. */
export function startEvidenceGateway(stack: PaymentStack, env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<TestGateway> {
  return startTestGateway({ ...stack.gatewayEnv, ...relaxedEvidenceLimits, ...env }, options);
}

/** What a settled payment hands the payer: both receipts this gateway issues. */
export interface PaidReceipt {
  readonly ref: PayableRef;
  readonly txHash: `0x${string}`;
  readonly receipt: PaymentReceipt;
  readonly signedReceipt: string;
  /** The official x402 receipt artifact (`info.receipt`). */
  readonly x402Receipt: EIP712SignedReceipt;
}

/** Pays a fresh fixed ref (or `ref`) with the official client; fails unless the gateway answers 200. */
export async function payForReceipt(gateway: TestGateway, stack: PaymentStack, options: { ref?: PayableRef; payer?: LocalAccount } = {}): Promise<PaidReceipt> {
  const ref = options.ref ?? (await payableRef(gateway));
  const response = await officialFetch(stack, options.payer ?? demoPayer(stack))(ref.resource);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`payment answered ${response.status}: ${text}`);
  const body = JSON.parse(text) as { transaction: `0x${string}`; extensions: { 'offer-receipt': { receipt: PaymentReceipt; signedReceipt: string; info: { receipt: EIP712SignedReceipt } } } };
  const extension = body.extensions['offer-receipt'];
  return { ref, txHash: body.transaction, receipt: extension.receipt, signedReceipt: extension.signedReceipt, x402Receipt: extension.info.receipt };
}

/** One raw JSON-RPC call to `url`; throws on a JSON-RPC error. */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Mines `blocks` empty blocks on anvil. */
export async function mine(stack: PaymentStack, blocks: number): Promise<void> {
  await rpc(stack.anvil.rpcUrl, 'anvil_mine', [`0x${blocks.toString(16)}`]);
}

/** The head block number of anvil. */
export async function headBlock(stack: PaymentStack): Promise<number> {
  return Number(BigInt(await rpc<string>(stack.anvil.rpcUrl, 'eth_blockNumber')));
}

/** One JSON-RPC call the proxy forwarded (or held). */
export interface ProxiedCall {
  readonly method: string;
  readonly params: unknown[];
}

/** An HTTP JSON-RPC proxy in front of anvil. */
export interface RpcProxy {
  readonly url: string;
  /** Every call received, in order (batches flattened). */
  readonly calls: ProxiedCall[];
  /** `forward` (default), `blackhole` (accept, never answer), or `refuse` (close the connection at once). */
  mode: 'forward' | 'blackhole' | 'refuse';
  /**
   * In `forward` mode, answers a single (unbatched) call itself when this returns a result, instead of
   * asking anvil: a node that lies or lags (for example one still serving a receipt of a replaced block).
   */
  respond?: ((call: ProxiedCall) => { result: unknown } | undefined) | undefined;
  close(): Promise<void>;
}

/** Starts an {@link RpcProxy} forwarding to `target`. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const upstream = new URL(target);
  const held = new Set<import('node:http').ServerResponse>();
  const proxy: RpcProxy = {
    url: '',
    calls: [],
    mode: 'forward',
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      let single: { id?: unknown; method: string; params?: unknown[] } | undefined;
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { id?: unknown; method: string; params?: unknown[] } | { method: string; params?: unknown[] }[];
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) proxy.calls.push({ method: call.method, params: call.params ?? [] });
        if (!Array.isArray(parsed)) single = parsed;
      } catch {
        // Not JSON-RPC: forwarded as is.
      }
      const answer = proxy.mode === 'forward' && single !== undefined ? proxy.respond?.({ method: single.method, params: single.params ?? [] }) : undefined;
      if (answer !== undefined) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: single?.id ?? null, result: answer.result }));
        return;
      }
      if (proxy.mode === 'refuse') {
        request.socket.destroy();
        return;
      }
      if (proxy.mode === 'blackhole') {
        held.add(response);
        return;
      }
      const forwarded = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
          answer.pipe(response);
        },
      );
      forwarded.on('error', () => response.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(proxy, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** A wallet of the dev chain's deployer (holds ETH, owns the test USDC): sends test transactions directly. */
export function deployerWallet(stack: PaymentStack) {
  return createWalletClient({ account: privateKeyToAccount(devAccountKeys.deployer), chain: devChainDefinition(stack.setup.chainId, stack.anvil.rpcUrl), transport: devTransport(stack.anvil.rpcUrl) });
}

/**
 * Init code of a contract that emits `count` `LOG0`s of `dataBytes` zero bytes each while it is created
 * (a constructor's logs are the deploying transaction's logs), then deploys nothing.
 */
export function logEmitterInitCode(count: number, dataBytes: number): `0x${string}` {
  const size = dataBytes.toString(16).padStart(4, '0');
  // PUSH2 size, PUSH1 0 (offset, on top), LOG0 — repeated, then STOP.
  return `0x${`61${size}6000a0`.repeat(count)}00`;
}

/** Sends a transaction from the deployer (automine decides when it is mined); returns its hash at once. */
export async function sendFromDeployer(stack: PaymentStack, request: { to?: `0x${string}`; data: `0x${string}`; gas?: bigint }): Promise<`0x${string}`> {
  const wallet = deployerWallet(stack);
  return wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, data: request.data, gas: request.gas ?? 3_000_000n, ...(request.to === undefined ? {} : { to: request.to }) });
}

/** Calldata of the test USDC's `mint(to, amount)` (the deployer may call it). */
export function mintCalldata(to: `0x${string}`, amount: bigint): `0x${string}` {
  return encodeFunctionData({ abi: testUsdcArtifact.abi, functionName: 'mint', args: [to, amount] });
}

/** Calldata of the test USDC's `transfer(to, amount)`. */
export function transferCalldata(to: `0x${string}`, amount: bigint): `0x${string}` {
  return encodeFunctionData({ abi: testUsdcArtifact.abi, functionName: 'transfer', args: [to, amount] });
}

/** Waits until anvil has a receipt of `hash` (automine on). */
export async function minedReceipt(stack: PaymentStack, hash: `0x${string}`): Promise<{ status: string; blockNumber: string }> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const receipt = await rpc<{ status: string; blockNumber: string } | null>(stack.anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]);
    if (receipt !== null) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no receipt of ${hash}`);
}
