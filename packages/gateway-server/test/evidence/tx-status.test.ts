// GET /tx/:txHash on a real anvil chain through the started gateway: a settled payment's status, its
// USDC transfer and confirmations as blocks are mined; unknown and malformed hashes; a pending and a
// reverted transaction; logs bounded in count and bytes; and a payment reorganised out of the chain,
// which /tx and /verify-receipt must never report as mined or confirmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { headBlock, logEmitterInitCode, mine, mintCalldata, minedReceipt, payForReceipt, rpc, sendFromDeployer, startEvidenceGateway, transferCalldata, type PaidReceipt } from './helpers';
import { TestWallClock } from '../helpers/clock';

interface TxView {
  txHash: string;
  network: string;
  found: boolean;
  status: string;
  confirmations: number;
  blockNumber: string | null;
  blockHash: string | null;
  transfer: { token: string; from: string; to: string; value: string; logIndex: number } | null;
  transferCount: number;
  logs: { logIndex: number; address: string; topics: string[]; data: string }[];
  logCount: number;
  logsTruncated: boolean;
}

const maxResponseBytes = 4_096;
const maxTxLogs = 5;

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidReceipt;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, { GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES: String(maxResponseBytes), GATEWAY_TX_MAX_LOGS: String(maxTxLogs) }, { clock: new TestWallClock() });
  paid = await payForReceipt(gateway, stack);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

const txStatus = (hash: string, query = '') => call<TxView>(gateway.url, 'GET', `/tx/${hash}${query}`);
const unknownHash = () => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`;

describe('GET /tx/:txHash for a settled payment', () => {
  it('reports success, the block, the USDC transfer payer → payTo and its logs', async () => {
    const response = await txStatus(paid.txHash);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const chainReceipt = await stack.chain.getTransactionReceipt({ hash: paid.txHash });
    expect(response.body).toMatchObject({
      txHash: paid.txHash.toLowerCase(),
      network: 'local',
      found: true,
      status: 'success',
      blockNumber: chainReceipt.blockNumber.toString(),
      blockHash: chainReceipt.blockHash,
      transfer: { token: stack.setup.usdc.address, from: paid.receipt.payer, to: paid.ref.merchant.payTo, value: '10000' },
      transferCount: 1,
      logCount: chainReceipt.logs.length,
      logsTruncated: false,
    });
    expect(response.body.confirmations).toBe(Number((await stack.chain.getBlockNumber()) - chainReceipt.blockNumber + 1n));
    expect(response.body.logs.map((log) => [log.logIndex, log.address.toLowerCase(), log.topics, log.data])).toEqual(
      chainReceipt.logs.map((log) => [log.logIndex, log.address.toLowerCase(), log.topics, log.data]),
    );
    // A hash in upper-case hex is the same transaction.
    const upper = await txStatus(`0x${paid.txHash.slice(2).toUpperCase()}`);
    expect(upper.body).toMatchObject({ found: true, status: 'success', txHash: paid.txHash.toLowerCase() });
  });

  it('grows confirmations as blocks are mined', async () => {
    const first = (await txStatus(paid.txHash)).body.confirmations;
    expect(first).toBeGreaterThanOrEqual(1);
    await mine(stack, 3);
    expect((await txStatus(paid.txHash)).body.confirmations).toBe(first + 3);
    await mine(stack, 1);
    expect((await txStatus(paid.txHash)).body.confirmations).toBe(first + 4);
  });

  it('answers found false / not_found for an unknown hash, and invalid_request for a malformed one', async () => {
    const response = await txStatus(unknownHash());
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ found: false, status: 'not_found', confirmations: 0, blockNumber: null, transfer: null, logs: [], logCount: 0 });
    for (const bad of ['0x1234', paid.txHash.slice(2), `${paid.txHash}00`, `0x${'g'.repeat(64)}`, `${paid.txHash.slice(0, -1)}%20`, 'null']) {
      expect(expectError(await txStatus(bad), 400, 'invalid_request')).toMatchObject({ field: 'txHash' });
    }
    expect(expectError(await txStatus(paid.txHash, '?network=atlantis'), 400, 'invalid_request')).toBeDefined();
    expect(expectError(await txStatus(paid.txHash, '?color=red'), 400, 'invalid_request')).toMatchObject({ field: 'color' });
  });
});

describe('GET /tx/:txHash for pending, reverted and log-heavy transactions', () => {
  it('reports a transaction in the mempool as pending, then success once mined', async () => {
    await rpc(stack.anvil.rpcUrl, 'evm_setAutomine', [false]);
    try {
      const hash = await sendFromDeployer(stack, { to: stack.setup.usdc.address, data: mintCalldata('0x000000000000000000000000000000000000bEEF', 5n) });
      expect((await txStatus(hash)).body).toMatchObject({ found: true, status: 'pending', confirmations: 0, blockNumber: null, transfer: null });
      await rpc(stack.anvil.rpcUrl, 'evm_mine');
      expect((await txStatus(hash)).body).toMatchObject({
        found: true,
        status: 'success',
        confirmations: 1,
        transfer: { from: '0x0000000000000000000000000000000000000000', to: '0x000000000000000000000000000000000000bEEF', value: '5' },
      });
    } finally {
      await rpc(stack.anvil.rpcUrl, 'evm_setAutomine', [true]);
    }
  });

  it('reports a mined, reverted transaction as reverted with no transfer and no logs', async () => {
    // A transfer of more USDC than the deployer holds; the explicit gas skips the estimate that would refuse it.
    const hash = await sendFromDeployer(stack, { to: stack.setup.usdc.address, data: transferCalldata('0x000000000000000000000000000000000000bEEF', 2n ** 255n), gas: 200_000n });
    const mined = await minedReceipt(stack, hash);
    expect(mined.status).toBe('0x0');
    const response = await txStatus(hash);
    expect(response.body).toMatchObject({ found: true, status: 'reverted', blockNumber: String(BigInt(mined.blockNumber)), transfer: null, transferCount: 0, logs: [], logCount: 0 });
    expect(response.body.confirmations).toBeGreaterThanOrEqual(1);
  });

  it('lists at most GATEWAY_TX_MAX_LOGS logs', async () => {
    const hash = await sendFromDeployer(stack, { data: logEmitterInitCode(12, 0) });
    expect((await minedReceipt(stack, hash)).status).toBe('0x1');
    const response = await txStatus(hash);
    expect(response.body).toMatchObject({ found: true, status: 'success', transfer: null, logCount: 12, logsTruncated: true });
    expect(response.body.logs.map((log) => log.logIndex)).toEqual([0, 1, 2, 3, 4]);
  });

  it('stops the logs at GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES', async () => {
    const hash = await sendFromDeployer(stack, { data: logEmitterInitCode(4, 300) });
    expect((await minedReceipt(stack, hash)).status).toBe('0x1');
    const response = await txStatus(hash);
    expect(response.body).toMatchObject({ found: true, status: 'success', logCount: 4, logsTruncated: true });
    // Fewer logs than the count bound allows: the byte bound stopped them, and the whole answer is within it.
    expect(response.body.logs.length).toBeGreaterThan(0);
    expect(response.body.logs.length).toBeLessThan(4);
    expect(response.body.logs[0]?.data).toBe(`0x${'00'.repeat(300)}`);
    expect(Buffer.byteLength(response.text)).toBeLessThanOrEqual(maxResponseBytes);
  });
});

describe('a payment reorganised out of the canonical chain', () => {
  it('is never reported as mined by /tx, nor as confirmed by /verify-receipt', async () => {
    const fresh = await payForReceipt(gateway, stack);
    const before = await txStatus(fresh.txHash);
    expect(before.body).toMatchObject({ found: true, status: 'success' });
    const verifyBody = { signedReceipt: fresh.signedReceipt, receipt: fresh.receipt, minConfirmations: 1 };
    const confirmed = await call<{ verified: boolean; chain: { status: string; confirmed: boolean } }>(gateway.url, 'POST', '/verify-receipt', { json: verifyBody });
    expect(confirmed.body).toMatchObject({ verified: true, chain: { status: 'confirmed', confirmed: true } });

    // Replace the payment's block (and the one after it) with blocks that do not hold it, then grow the
    // chain past its old height so that a stale receipt would show confirmations.
    const paidBlock = Number(before.body.blockNumber);
    await mine(stack, 1);
    const depth = (await headBlock(stack)) - paidBlock + 1;
    await rpc(stack.anvil.rpcUrl, 'anvil_reorg', [depth, []]);
    await mine(stack, 3);
    expect(await rpc(stack.anvil.rpcUrl, 'eth_getBlockByNumber', [`0x${paidBlock.toString(16)}`, false])).not.toMatchObject({ hash: before.body.blockHash });

    const after = await txStatus(fresh.txHash);
    expect(after.status).toBe(200);
    expect(['not_found', 'pending']).toContain(after.body.status);
    expect(after.body).toMatchObject({ confirmations: 0, blockNumber: null, blockHash: null });
    expect(after.body.found).toBe(after.body.status === 'pending');

    const verification = await call<{ verified: boolean; chain: { status: string; confirmed: boolean; confirmations: number } }>(gateway.url, 'POST', '/verify-receipt', { json: verifyBody });
    expect(verification.status, verification.text).toBe(200);
    expect(verification.body).toMatchObject({ verified: false, chain: { confirmed: false, confirmations: 0 } });
    expect(['not_found', 'pending']).toContain(verification.body.chain.status);
  });
});
