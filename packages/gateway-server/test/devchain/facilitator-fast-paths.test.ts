// The dev facilitator's fast paths in isolation; the facilitator suite proves them end to end on anvil.
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { preparedSender, quickReceipt, transferGasPlan } from '../../src/devchain/facilitator-fast-paths';

const token: Address = '0x1111111111111111111111111111111111111111';
const transfer: Hex = '0xe3ee160e00000000000000000000000000000000000000000000000000000000000000aa';
const sameFunctionOtherArgs: Hex = '0xe3ee160e00000000000000000000000000000000000000000000000000000000000000bb';
const otherFunction: Hex = '0xef55bec600000000000000000000000000000000000000000000000000000000000000aa';

describe('transferGasPlan', () => {
  it('vouches for a transfer once, and only after its simulation passed within the TTL', async () => {
    const plan = transferGasPlan(40);
    expect(plan.take(token, transfer)).toBe(false);
    plan.simulated(token, transfer, plan.begin());
    expect(plan.take(token, sameFunctionOtherArgs)).toBe(false);
    expect(plan.take(token, transfer)).toBe(true);
    // Used once: a replay of the same call is estimated (pre-flighted) again.
    expect(plan.take(token, transfer)).toBe(false);
    plan.simulated(token, transfer, plan.begin());
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(plan.take(token, transfer)).toBe(false);
  });

  it('never vouches with a simulation that began before the previous send of the same call was decided', () => {
    const plan = transferGasPlan();
    const early = plan.begin();
    plan.simulated(token, transfer, plan.begin());
    expect(plan.take(token, transfer)).toBe(true);
    // A verify that started before that send and finished after it: it may have simulated the old chain.
    plan.simulated(token, transfer, early);
    expect(plan.take(token, transfer)).toBe(false);
    plan.simulated(token, transfer, plan.begin());
    expect(plan.take(token, transfer)).toBe(true);
  });

  it('knows no limit before an estimate, then the highest estimate per contract and function plus headroom', () => {
    const plan = transferGasPlan(30_000, 50);
    expect(plan.limitFor(token, transfer)).toBeUndefined();
    plan.record(token, transfer, 80_000n);
    plan.record(token, sameFunctionOtherArgs, 60_000n);
    expect(plan.limitFor(token, sameFunctionOtherArgs)).toBe(120_000n);
    plan.record(token, transfer, 100_000n);
    expect(plan.limitFor(token, transfer)).toBe(150_000n);
    expect(plan.limitFor(token, otherFunction)).toBeUndefined();
    expect(plan.limitFor('0x2222222222222222222222222222222222222222', transfer)).toBeUndefined();
  });

  it('forgets a limit that proved too low, so the next transfer is estimated again', () => {
    const plan = transferGasPlan();
    plan.record(token, transfer, 70_000n);
    plan.raise(token, transfer);
    expect(plan.limitFor(token, transfer)).toBeUndefined();
  });
});

describe('quickReceipt', () => {
  it('returns the receipt of the first look that finds it, without the slow wait', async () => {
    let looks = 0;
    const receipt = await quickReceipt(
      async () => (++looks < 3 ? null : { status: 'success' }),
      () => Promise.reject(new Error('the slow wait must not run')),
    );
    expect(receipt).toEqual({ status: 'success' });
    expect(looks).toBe(3);
  });

  it('falls back to the slow wait when the quick looks miss or fail', async () => {
    let looks = 0;
    const receipt = await quickReceipt(
      async () => {
        looks += 1;
        throw new Error('TransactionReceiptNotFoundError');
      },
      async () => ({ status: 'reverted' }),
      [0, 1],
    );
    expect(receipt).toEqual({ status: 'reverted' });
    expect(looks).toBe(2);
  });
});

describe('preparedSender', () => {
  it('decides a gas function only after every earlier transaction was broadcast', async () => {
    const events: string[] = [];
    const send = preparedSender({
      chainId: 31337,
      address: token,
      signTransaction: async (request) => `0x${request.nonce.toString(16).padStart(2, '0')}` as Hex,
      sendRawTransaction: async (serialized) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push(`broadcast ${serialized}`);
        return `0x${'ab'.repeat(32)}`;
      },
      getTransactionCount: async () => 0,
      estimateGas: async () => 50_000n,
      estimateFees: async () => ({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
    });
    const first = send(token, transfer, 60_000n);
    const second = send(token, transfer, async () => {
      events.push('gas decided');
      return 60_000n;
    });
    await Promise.all([first, second]);
    expect(events).toEqual(['broadcast 0x00', 'gas decided', 'broadcast 0x01']);
  });
});
