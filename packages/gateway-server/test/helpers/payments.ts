// Shared helpers of the payment tests: a real anvil chain with the test USDC and the self-hosted x402
// facilitator (settle calls counted, faults injectable), merchants and refs on the `local` network, the
// official x402 client, and payments signed directly with viem (never by the code under test).
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { PaymentPayload as OfficialPaymentPayload, PaymentRequired as OfficialPaymentRequired, SettleResponse } from '@x402/core/types';
import { createWalletClient, parseEventLogs, toHex, type Address, type Hash, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PaymentRequirements } from '@tollgate/core';
import { base64Encode, utf8Encode } from '@tollgate/core/crypto';
import { transferWithAuthorizationTypes } from '@tollgate/core/x402';
import {
  createDevPublicClient,
  createLocalFacilitator,
  devAccountKeys,
  devChainDefinition,
  devTransport,
  setupDevChain,
  startAnvil,
  startFacilitatorServer,
  testUsdcArtifact,
  type AnvilInstance,
  type DevChainSetup,
  type FacilitatorBackend,
  type FacilitatorServer,
  type LocalFacilitator,
  type SettleResponseControl,
} from '@tollgate/gateway-server/devchain';
import { call, createRef, registerMerchant, type TestGateway, type TestMerchant } from './gateway';

/** Fault injection points of the dev facilitator, swapped per test. */
export interface FacilitatorFaults {
  /** Runs after settlement, before the answer is written (see `FacilitatorServerOptions.beforeSettleResponse`). */
  beforeSettleResponse?: (result: SettleResponse, control: SettleResponseControl) => SettleResponse | void | Promise<SettleResponse | void>;
  /** Runs after the settlement transaction was broadcast (see `LocalFacilitatorOptions.onTransactionBroadcast`). */
  onTransactionBroadcast?: (txHash: Hash) => void | Promise<void>;
}

/** A chain with the test USDC and a facilitator server in front of it. */
export interface PaymentStack {
  readonly anvil: AnvilInstance;
  readonly setup: DevChainSetup;
  readonly chain: ReturnType<typeof createDevPublicClient>;
  readonly local: LocalFacilitator;
  readonly facilitator: FacilitatorServer;
  /** Calls of the facilitator's settle and verify that reached it, since the stack started or `resetCounts()`. */
  readonly counts: { settle: number; verify: number };
  /** Mutable per test. */
  readonly faults: FacilitatorFaults;
  /** The gateway environment that uses this stack (facilitator, RPC, local USDC). */
  readonly gatewayEnv: Record<string, string>;
  resetCounts(): void;
  stop(): Promise<void>;
}

/** Starts anvil, installs the test USDC, and serves a counting, fault-injectable dev facilitator. */
export async function startPaymentStack(options: { receiptTimeoutMs?: number } = {}): Promise<PaymentStack> {
  const anvil = await startAnvil();
  const faults: FacilitatorFaults = {};
  const counts = { settle: 0, verify: 0 };
  try {
    const setup = await setupDevChain({ rpcUrl: anvil.rpcUrl });
    const chain = createDevPublicClient(devChainDefinition(setup.chainId, anvil.rpcUrl), anvil.rpcUrl);
    const local = await createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      privateKey: setup.facilitator.privateKey,
      networks: [setup.network],
      ...(options.receiptTimeoutMs === undefined ? {} : { receiptTimeoutMs: options.receiptTimeoutMs }),
      onTransactionBroadcast: (txHash) => faults.onTransactionBroadcast?.(txHash),
    });
    const counting: FacilitatorBackend = {
      verify: (payload, requirements) => {
        counts.verify += 1;
        return local.facilitator.verify(payload, requirements);
      },
      settle: (payload, requirements) => {
        counts.settle += 1;
        return local.facilitator.settle(payload, requirements);
      },
      getSupported: () => local.facilitator.getSupported(),
    };
    const facilitator = await startFacilitatorServer({
      facilitator: counting,
      beforeSettleResponse: (result, control) => faults.beforeSettleResponse?.(result, control),
    });
    return {
      anvil,
      setup,
      chain,
      local,
      facilitator,
      counts,
      faults,
      gatewayEnv: {
        GATEWAY_FACILITATOR_URL: facilitator.url,
        GATEWAY_RPC_URLS: `local=${anvil.rpcUrl}`,
        GATEWAY_LOCAL_USDC: setup.usdc.address,
      },
      resetCounts() {
        counts.settle = 0;
        counts.verify = 0;
      },
      async stop() {
        await facilitator.stop();
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** A merchant on the `local` network with one ref. */
export interface PayableRef {
  readonly merchant: TestMerchant;
  readonly refId: string;
  /** The snapshot's resource URL: `<origin>/receive/<payTo>?ref=<refId>`. */
  readonly resource: string;
  /** The receive path with the query, for `call(gateway.url, 'GET', path)`. */
  readonly path: string;
}

/** Registers a merchant on `local` (or reuses one) and creates a ref; `amount: undefined` makes an open ref. */
export async function payableRef(gateway: TestGateway, options: { merchant?: TestMerchant; amount?: string | undefined; extra?: Record<string, unknown> } = {}): Promise<PayableRef> {
  const merchant = options.merchant ?? (await registerMerchant(gateway.url, { network: 'local' }));
  const amount = 'amount' in options ? options.amount : '10000';
  const response = await createRef(gateway.url, merchant, { network: 'local', amount, ...options.extra });
  if (response.status !== 201) throw new Error(`createRef failed: ${response.text}`);
  const { refId, snapshot } = response.body as { refId: string; snapshot: { resource: string } };
  const url = new URL(snapshot.resource);
  return { merchant, refId, resource: snapshot.resource, path: `${url.pathname}${url.search}` };
}

/** The official x402 client for `payer`, allowed to spend the dev chain's test USDC. */
export function officialClient(stack: PaymentStack, payer: LocalAccount): x402Client {
  return x402Client.fromConfig({
    schemes: [{ network: stack.setup.network, client: new ExactEvmScheme(payer) }],
    spendControls: { allowedAssets: [{ network: stack.setup.network, asset: stack.setup.usdc.address }] },
  });
}

/** `fetch` wrapped by the official `@x402/fetch` for `payer`. */
export function officialFetch(stack: PaymentStack, payer: LocalAccount): (input: string, init?: RequestInit) => Promise<Response> {
  return wrapFetchWithPayment(fetch, officialClient(stack, payer));
}

/** Asks the gateway for the 402 and lets the official client build the PAYMENT-SIGNATURE header (not sent). */
export async function officialPaymentHeader(gateway: TestGateway, path: string, stack: PaymentStack, payer: LocalAccount): Promise<{ header: string; payload: OfficialPaymentPayload; required: OfficialPaymentRequired }> {
  const negotiation = await call(gateway.url, 'GET', path);
  if (negotiation.status !== 402) throw new Error(`expected 402, got ${negotiation.status}: ${negotiation.text}`);
  const http = new x402HTTPClient(officialClient(stack, payer));
  const required = http.getPaymentRequiredResponse((name) => negotiation.headers.get(name));
  const payload = await http.createPaymentPayload(required);
  return { header: http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'] as string, payload, required };
}

/** Encodes any payload as a PAYMENT-SIGNATURE header (standard base64 of its JSON). */
export function encodePayment(payload: unknown): string {
  return base64Encode(utf8Encode(JSON.stringify(payload)));
}

/** Decodes a base64 JSON header. */
export function decodeHeader<T = Record<string, unknown>>(header: string | null): T {
  if (header === null) throw new Error('header missing');
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as T;
}


/** The EIP-712 domain facts of a token: what a payer signs EIP-3009 authorizations under. */
export interface TokenDomainFacts {
  chainId: number;
  address: Address;
  name: string;
  version: string;
}

/** The token domain of the stack's test USDC. */
export function tokenOf(stack: PaymentStack): TokenDomainFacts {
  return { chainId: stack.setup.chainId, address: stack.setup.usdc.address, name: stack.setup.usdc.domain.name, version: stack.setup.usdc.domain.version };
}

/** An exact EIP-3009 payment for `accepted`, signed with viem's `signTypedData` with chosen times and nonce. */
export async function signPayment(
  token: TokenDomainFacts,
  payer: LocalAccount,
  accepted: PaymentRequirements,
  options: { validAfter?: bigint; validBefore?: bigint; nonce?: Hex; extensions?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: payer.address,
    to: accepted.payTo as Address,
    value: BigInt(accepted.amount),
    validAfter: options.validAfter ?? now - 600n,
    validBefore: options.validBefore ?? now + 300n,
    nonce: options.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await payer.signTypedData({
    domain: { name: token.name, version: token.version, chainId: token.chainId, verifyingContract: token.address },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return {
    x402Version: 2,
    accepted,
    payload: {
      authorization: {
        from: authorization.from,
        to: authorization.to,
        value: String(authorization.value),
        validAfter: String(authorization.validAfter),
        validBefore: String(authorization.validBefore),
        nonce: authorization.nonce,
      },
      signature,
    },
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
  };
}

/** The `Transfer` events of the test USDC to `payTo` (all blocks). */
export async function transfersTo(stack: PaymentStack, payTo: string): Promise<{ from: Address; to: Address; value: bigint; transactionHash: Hash }[]> {
  const logs = await stack.chain.getLogs({ address: stack.setup.usdc.address, fromBlock: 0n, toBlock: 'latest' });
  return parseEventLogs({ abi: testUsdcArtifact.abi, logs, eventName: 'Transfer' })
    .filter((log) => (log.args as { to: string }).to.toLowerCase() === payTo.toLowerCase())
    .map((log) => ({ ...(log.args as { from: Address; to: Address; value: bigint }), transactionHash: log.transactionHash }));
}

/** Mints `amount` atomic units of the test USDC to `address` (the token owner is the deployer). */
export async function mintUsdc(stack: PaymentStack, address: Address, amount: bigint): Promise<void> {
  const deployer = privateKeyToAccount(devAccountKeys.deployer);
  const wallet = createWalletClient({ account: deployer, chain: devChainDefinition(stack.setup.chainId, stack.anvil.rpcUrl), transport: devTransport(stack.anvil.rpcUrl) });
  const hash = await wallet.writeContract({ address: stack.setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'mint', args: [address, amount] });
  await stack.chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** A fresh payer holding `usdc` atomic units of the test USDC. */
export async function fundedPayer(stack: PaymentStack, usdc: bigint): Promise<LocalAccount> {
  const payer = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await mintUsdc(stack, payer.address, usdc);
  return payer;
}

/** The dev chain's demo payer (holds test USDC). */
export function demoPayer(stack: PaymentStack): LocalAccount {
  return privateKeyToAccount(stack.setup.payer.privateKey);
}
