import { createServer, type Server } from 'node:http';
import { createPublicClient, createTestClient, encodeFunctionData, http, parseSignature, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainReadError, findAuthorizationSettlement, type FindAuthorizationSettlementParams } from '@tollgate/core/chain';
import {
  createDevPublicClient,
  devAccountKeys,
  devChainDefinition,
  devTransport,
  findFreePort,
  multicall3Artifact,
  MULTICALL3_ADDRESS,
  setupDevChain,
  startAnvil,
  testUsdcArtifact,
  type AnvilInstance,
  type DevChainSetup,
} from '@tollgate/gateway-server/devchain';
import { randomNonce, signAuthorization, signCancellation, walletFor, type Authorization } from './helpers';

const MERCHANT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const OTHER: Address = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';

let anvil: AnvilInstance;
let setup: DevChainSetup;
let client: ReturnType<typeof createDevPublicClient>;
let submitter: ReturnType<typeof walletFor>;
let cheats: ReturnType<typeof createTestClient>;
const payer = privateKeyToAccount(devAccountKeys.payer);

beforeAll(async () => {
  anvil = await startAnvil();
  setup = await setupDevChain({ rpcUrl: anvil.rpcUrl });
  const chain = devChainDefinition(setup.chainId, anvil.rpcUrl);
  client = createDevPublicClient(chain, anvil.rpcUrl);
  submitter = walletFor(privateKeyToAccount(devAccountKeys.facilitator), chain, anvil.rpcUrl);
  cheats = createTestClient({ mode: 'anvil', chain, transport: devTransport(anvil.rpcUrl) });
});

afterAll(async () => {
  await anvil?.stop();
});

async function authorization(overrides: Partial<Authorization> = {}): Promise<Authorization> {
  const now = (await client.getBlock()).timestamp;
  return { from: payer.address, to: MERCHANT, value: 10_000n, validAfter: 0n, validBefore: now + 3_600n, nonce: randomNonce(), ...overrides };
}

/** Executes an authorization with the v,r,s overload and returns the receipt. */
async function execute(a: Authorization) {
  const { v, r, s } = parseSignature(await signAuthorization(payer, setup.usdc.domain, a));
  const hash = await submitter.writeContract({
    address: setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization',
    args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, Number(v), r, s],
  });
  return client.waitForTransactionReceipt({ hash });
}

function query(a: Authorization, overrides: Partial<FindAuthorizationSettlementParams> = {}) {
  return findAuthorizationSettlement({ client, token: setup.usdc.address, authorizer: a.from, nonce: a.nonce, payTo: MERCHANT, value: 10_000n, maxBlockSpan: 1_000, ...overrides });
}

/** A client that records the block span of every eth_getLogs it sends. */
function recordingClient(spans: bigint[]) {
  return createPublicClient({
    transport: http(anvil.rpcUrl, {
      retryCount: 0,
      onFetchRequest: (_request, init) => {
        const body = JSON.parse(String(init.body)) as { method: string; params: [{ fromBlock: Hex; toBlock: Hex }] };
        if (body.method === 'eth_getLogs') spans.push(BigInt(body.params[0].toBlock) - BigInt(body.params[0].fromBlock) + 1n);
      },
    }),
  });
}

describe('findAuthorizationSettlement', () => {
  it('finds a settled authorization with its transaction, block and transfer', async () => {
    const a = await authorization();
    const receipt = await execute(a);
    const transferLog = receipt.logs.at(-1);
    expect(await query(a)).toEqual({
      status: 'settled', txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash,
      logIndex: transferLog?.logIndex, from: payer.address, to: MERCHANT, value: 10_000n,
    });
  });

  it('reports an unknown nonce as not_found', async () => {
    expect(await query(await authorization())).toEqual({ status: 'not_found' });
  });

  it('reports a nonce spent on another payee or amount as a mismatch', async () => {
    const a = await authorization({ to: OTHER, value: 7_000n });
    const receipt = await execute(a);
    const where = { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
    expect(await query(a)).toEqual({ status: 'mismatch', reason: 'payee_mismatch', ...where, transfer: { from: payer.address, to: OTHER, value: 7_000n } });
    expect(await query(a, { payTo: OTHER })).toEqual({ status: 'mismatch', reason: 'value_mismatch', ...where, transfer: { from: payer.address, to: OTHER, value: 7_000n } });
    expect(await query(a, { payTo: OTHER, value: 7_000n })).toMatchObject({ status: 'settled', ...where });
  });

  it('reports a canceled authorization as a mismatch', async () => {
    const a = await authorization();
    const { v, r, s } = parseSignature(await signCancellation(payer, setup.usdc.domain, payer.address, a.nonce));
    const hash = await submitter.writeContract({ address: setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'cancelAuthorization', args: [payer.address, a.nonce, Number(v), r, s] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(await query(a)).toEqual({ status: 'mismatch', reason: 'canceled', txHash: hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash });
  });

  it('attributes each transfer of a batched transaction to its own authorization', async () => {
    const toMerchant = await authorization();
    const toOther = await authorization({ to: OTHER });
    const call = async (a: Authorization) => ({
      target: setup.usdc.address,
      allowFailure: false,
      callData: encodeFunctionData({
        abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization',
        args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, await signAuthorization(payer, setup.usdc.domain, a)],
      }),
    });
    const hash = await submitter.writeContract({ address: MULTICALL3_ADDRESS, abi: multicall3Artifact.abi, functionName: 'aggregate3', args: [[await call(toOther), await call(toMerchant)]] });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await query(toMerchant)).toMatchObject({ status: 'settled', txHash: hash, to: MERCHANT });
    expect(await query(toOther)).toMatchObject({ status: 'mismatch', reason: 'payee_mismatch', txHash: hash, transfer: { to: OTHER } });
  });

  it('keeps every eth_getLogs within maxBlockSpan and only searches the given range', async () => {
    await cheats.mine({ blocks: 30 });
    const a = await authorization();
    const settledAt = (await execute(a)).blockNumber;
    await cheats.mine({ blocks: 40 });
    const head = await client.getBlockNumber({ cacheTime: 0 });

    const backward: bigint[] = [];
    expect(await query(a, { client: recordingClient(backward), fromBlock: settledAt - 20n, maxBlockSpan: 7 })).toMatchObject({ status: 'settled', blockNumber: settledAt });
    // Newest first: ranges end at head, head-7, …; the hit is in the range that contains settledAt.
    expect(backward).toHaveLength(Number((head - settledAt) / 7n) + 1);
    expect(backward.every((span) => span >= 1n && span <= 7n)).toBe(true);

    const forward: bigint[] = [];
    expect(await query(a, { client: recordingClient(forward), fromBlock: settledAt - 20n, maxBlockSpan: 7, direction: 'forward' })).toMatchObject({ status: 'settled' });
    expect(forward).toHaveLength(Math.floor(20 / 7) + 1);
    expect(forward.every((span) => span <= 7n)).toBe(true);

    const after: bigint[] = [];
    expect(await query(a, { client: recordingClient(after), fromBlock: settledAt + 1n, maxBlockSpan: 10 })).toEqual({ status: 'outside_range', fromBlock: settledAt + 1n, toBlock: head });
    expect(after).toHaveLength(Math.ceil(Number(head - settledAt) / 10));
    expect(await query(a, { fromBlock: 0n, toBlock: settledAt - 1n })).toEqual({ status: 'outside_range', fromBlock: 0n, toBlock: settledAt - 1n });
    expect(await query(a, { fromBlock: head + 5n, toBlock: head + 9n })).toMatchObject({ status: 'outside_range', toBlock: head });
  });

  it('pins the state read and the log search to blockNumber, and searches at most maxScanBlocks', async () => {
    const a = await authorization();
    const settledAt = (await execute(a)).blockNumber;
    await cheats.mine({ blocks: 30 });
    // Before the block that executed it, the authorization was unused.
    expect(await query(a, { blockNumber: settledAt - 1n })).toEqual({ status: 'not_found' });
    expect(await query(a, { blockNumber: settledAt + 10n, fromBlock: settledAt + 11n })).toEqual({ status: 'outside_range', fromBlock: settledAt + 11n, toBlock: settledAt + 10n });
    const spans: bigint[] = [];
    expect(await query(a, { client: recordingClient(spans), blockNumber: settledAt + 10n, fromBlock: settledAt - 10n, maxBlockSpan: 5 })).toMatchObject({ status: 'settled' });
    expect(spans).toEqual([5n, 5n, 5n]);
    // Backward from the pinned block: the 8 newest blocks only.
    expect(await query(a, { blockNumber: settledAt + 10n, maxScanBlocks: 8, maxBlockSpan: 5 })).toEqual({ status: 'outside_range', fromBlock: settledAt + 3n, toBlock: settledAt + 10n });
    // Forward from fromBlock: the 5 oldest blocks only.
    expect(await query(a, { fromBlock: settledAt - 2n, direction: 'forward', maxScanBlocks: 5 })).toMatchObject({ status: 'settled', blockNumber: settledAt });
    expect(await query(a, { fromBlock: settledAt - 10n, direction: 'forward', maxScanBlocks: 5 })).toEqual({ status: 'outside_range', fromBlock: settledAt - 10n, toBlock: settledAt - 6n });
    await expect(query(a, { maxScanBlocks: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(query(a, { blockNumber: -1n })).rejects.toBeInstanceOf(RangeError);
  });

  it('throws ChainReadError when the node is unreachable or silent', async () => {
    const a = await authorization();
    const downUrl = `http://127.0.0.1:${await findFreePort()}`;
    const down = createPublicClient({ transport: http(downUrl, { retryCount: 0 }) });
    const refused = await query(a, { client: down }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChainReadError);
    expect(refused).toMatchObject({ code: 'rpc_unavailable', details: { operation: 'eth_blockNumber', failure: 'transport' } });
    const pinned = await query(a, { client: down, blockNumber: 1n }).catch((e: unknown) => e);
    expect(pinned).toMatchObject({ code: 'rpc_unavailable', details: { operation: 'eth_call authorizationState', failure: 'transport' } });

    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const address = silent.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const hanging = createPublicClient({ transport: http(`http://127.0.0.1:${port}`, { retryCount: 0, timeout: 60_000 }) });
      await expect(query(a, { client: hanging, timeoutMs: 200 })).rejects.toMatchObject({ name: 'ChainReadError', details: { failure: 'timeout' } });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('rejects malformed parameters before any RPC call', async () => {
    const a = await authorization();
    await expect(query(a, { nonce: '0x1234' as Hash })).rejects.toBeInstanceOf(TypeError);
    await expect(query(a, { payTo: 'merchant' as Address })).rejects.toBeInstanceOf(TypeError);
    await expect(query(a, { maxBlockSpan: 0 })).rejects.toThrow(/maxBlockSpan/);
    await expect(query(a, { fromBlock: 10n, toBlock: 9n })).rejects.toBeInstanceOf(RangeError);
    await expect(query(a, { fromBlock: -1n })).rejects.toBeInstanceOf(RangeError);
    await expect(query(a, { value: -1n })).rejects.toBeInstanceOf(RangeError);
  });
});
