import { encodeAbiParameters, encodeEventTopics, type Address, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { attributeTransfer, authorizationUsedEvent, transferEvent } from './index';

const token: Address = '0x1111111111111111111111111111111111111111';
const otherToken: Address = '0x2222222222222222222222222222222222222222';
const payer: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const merchant: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const other: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const nonceA: Hex = `0x${'a1'.repeat(32)}`;
const nonceB: Hex = `0x${'b2'.repeat(32)}`;

let nextIndex = 0;
function used(authorizer: Address, nonce: Hex, address = token) {
  return { address, logIndex: nextIndex++, data: '0x' as Hex, topics: encodeEventTopics({ abi: [authorizationUsedEvent], args: { authorizer, nonce } }) as [Hex, ...Hex[]] };
}
function transfer(from: Address, to: Address, value: bigint, address = token) {
  return {
    address,
    logIndex: nextIndex++,
    data: encodeAbiParameters([{ type: 'uint256' }], [value]),
    topics: encodeEventTopics({ abi: [transferEvent], args: { from, to } }) as [Hex, ...Hex[]],
  };
}

describe('attributeTransfer', () => {
  it('takes the Transfer that follows the AuthorizationUsed log (USDC order)', () => {
    const logs = [used(payer, nonceA), transfer(payer, merchant, 10_000n)];
    expect(attributeTransfer(logs, token, payer, logs[0]!.logIndex)).toEqual({ from: payer, to: merchant, value: 10_000n, logIndex: logs[1]!.logIndex });
  });

  it('separates two authorizations of one payer batched in one transaction', () => {
    const logs = [used(payer, nonceA), transfer(payer, merchant, 10_000n), used(payer, nonceB), transfer(payer, other, 5n)];
    expect(attributeTransfer(logs, token, payer, logs[2]!.logIndex)).toMatchObject({ to: other, value: 5n });
    expect(attributeTransfer(logs, token, payer, logs[0]!.logIndex)).toMatchObject({ to: merchant, value: 10_000n });
  });

  it('looks back for tokens that transfer before emitting AuthorizationUsed', () => {
    const logs = [transfer(payer, merchant, 7n), used(payer, nonceA)];
    expect(attributeTransfer(logs, token, payer, logs[1]!.logIndex)).toMatchObject({ to: merchant, value: 7n });
  });

  it('ignores other contracts and transfers from other senders', () => {
    const logs = [used(payer, nonceA), transfer(payer, other, 1n, otherToken), transfer(other, merchant, 2n), transfer(payer, merchant, 3n)];
    expect(attributeTransfer(logs, token, payer, logs[0]!.logIndex)).toMatchObject({ to: merchant, value: 3n });
  });

  it('returns undefined when the authorization moved nothing or the log index is unknown', () => {
    const logs = [used(payer, nonceA), used(payer, nonceB), transfer(payer, merchant, 3n)];
    expect(attributeTransfer(logs, token, payer, logs[0]!.logIndex)).toBeUndefined();
    expect(attributeTransfer(logs, token, payer, 9_999)).toBeUndefined();
  });
});
