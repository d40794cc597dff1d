// An in-memory EVM chain as the settlement evidence reader sees it (head block, `authorizationState`,
// the `AuthorizationUsed` logs, receipts), for the recovery tests that need what anvil cannot stage: a
// load-balanced RPC whose nodes lag each other, logs that are not indexed yet, millions of blocks.
import { encodeAbiParameters, encodeEventTopics, getAddress, pad, toHex, type Address, type Hash, type Hex } from 'viem';
import { authorizationUsedEvent, transferEvent } from '@tollgate/core/chain';
import type { SettlementChainClient } from '@tollgate/core/gateway';

/** A transfer the fake chain executed for an authorization. */
export interface FakeSettlement {
  readonly authorizer: Address;
  readonly nonce: Hex;
  readonly to: Address;
  readonly value: bigint;
  readonly block: bigint;
  readonly txHash: Hash;
  /** Whether `eth_getLogs` returns its `AuthorizationUsed` log yet (a node may serve the state first). */
  logsVisible: boolean;
}

/** One `eth_getLogs` call: the inclusive range it asked for. */
export interface LogRange {
  readonly from: bigint;
  readonly to: bigint;
}

/** The fake chain and what its client was asked. */
export interface FakeChain {
  readonly client: SettlementChainClient;
  /**
   * The head block `eth_getBlockByNumber('latest')` and `eth_blockNumber` answer. Earlier blocks are
   * `blockSeconds` apart: block n has the timestamp `head.timestamp - (head.number - n) * blockSeconds`.
   */
  head: { number: bigint; timestamp: bigint };
  /** Seconds between blocks (2 by default, as on Base). */
  blockSeconds: bigint;
  /** Every block number `eth_getBlockByNumber` was asked for (timestamp searches). */
  readonly blockReads: bigint[];
  /**
   * The newest block the node answering `eth_call` knows (a lagging node behind a load balancer):
   * asked about a later block it fails ("header not found"), asked about `latest` it answers from this
   * block. `undefined`: it is in sync.
   */
  stateNodeHead: bigint | undefined;
  /** `eth_blockNumber` fails (no head known when settle starts). */
  headReadFails: boolean;
  /** The block each `authorizationState` read was pinned to (`undefined`: latest). */
  readonly stateReads: (bigint | undefined)[];
  readonly logRanges: LogRange[];
  /** Executes an authorization in `block` (its logs visible unless told otherwise). */
  execute(settlement: Omit<FakeSettlement, 'logsVisible'> & { logsVisible?: boolean }): FakeSettlement;
}

const key = (authorizer: string, nonce: string) => `${authorizer.toLowerCase()}:${nonce.toLowerCase()}`;

/**
 * Creates a fake chain whose token is `token`.
 *
 * @param token - The USDC address of the network the payments use.
 * @param head - The initial head block.
 */
export function createFakeChain(token: Address, head: { number: bigint; timestamp: bigint }): FakeChain {
  const settlements = new Map<string, FakeSettlement>();
  const byHash = new Map<string, FakeSettlement>();
  const usedTopic = encodeEventTopics({ abi: [authorizationUsedEvent], eventName: 'AuthorizationUsed' })[0];

  const chain: FakeChain = {
    head,
    blockSeconds: 2n,
    blockReads: [],
    stateNodeHead: undefined,
    headReadFails: false,
    stateReads: [],
    logRanges: [],
    execute(settlement) {
      const executed: FakeSettlement = { ...settlement, logsVisible: settlement.logsVisible ?? true };
      settlements.set(key(executed.authorizer, executed.nonce), executed);
      byHash.set(executed.txHash, executed);
      return executed;
    },
    client: {
      getBlock: async ({ blockNumber }: { blockNumber?: bigint } = {}) => {
        if (blockNumber === undefined) return { number: chain.head.number, timestamp: chain.head.timestamp };
        chain.blockReads.push(blockNumber);
        if (blockNumber > chain.head.number) throw new Error('block not found');
        return { number: blockNumber, timestamp: chain.head.timestamp - (chain.head.number - blockNumber) * chain.blockSeconds };
      },
      getBlockNumber: async () => {
        if (chain.headReadFails) throw new Error('connection refused');
        return chain.head.number;
      },
      readContract: async ({ args, blockNumber }: { args: readonly [Address, Hex]; blockNumber?: bigint }) => {
        chain.stateReads.push(blockNumber);
        const known = chain.stateNodeHead ?? chain.head.number;
        if (blockNumber !== undefined && blockNumber > known) throw new Error('header not found');
        const executed = settlements.get(key(args[0], args[1]));
        return executed !== undefined && executed.block <= (blockNumber ?? known);
      },
      request: async ({ method, params }: { method: string; params: [{ topics: [unknown, Hex, Hex]; fromBlock: Hex; toBlock: Hex }] }) => {
        if (method !== 'eth_getLogs') throw new Error(`unexpected ${method}`);
        const [filter] = params;
        const range = { from: BigInt(filter.fromBlock), to: BigInt(filter.toBlock) };
        chain.logRanges.push(range);
        const authorizer = `0x${filter.topics[1].slice(-40)}`;
        const executed = settlements.get(key(authorizer, filter.topics[2]));
        if (executed === undefined || !executed.logsVisible || executed.block < range.from || executed.block > range.to) return [];
        return [{ blockNumber: toHex(executed.block), blockHash: pad(toHex(executed.block)), transactionHash: executed.txHash, logIndex: '0x0', topics: [usedTopic, pad(executed.authorizer), executed.nonce] }];
      },
      getTransactionReceipt: async ({ hash }: { hash: Hash }) => {
        const executed = byHash.get(hash);
        if (executed === undefined || executed.block > chain.head.number) throw Object.assign(new Error(`Transaction receipt with hash "${hash}" could not be found.`), { name: 'TransactionReceiptNotFoundError' });
        return {
          status: 'success',
          blockNumber: executed.block,
          logs: [
            { address: token, logIndex: 0, data: '0x', topics: encodeEventTopics({ abi: [authorizationUsedEvent], eventName: 'AuthorizationUsed', args: { authorizer: executed.authorizer, nonce: executed.nonce } }) },
            {
              address: token,
              logIndex: 1,
              data: encodeAbiParameters([{ type: 'uint256' }], [executed.value]),
              topics: encodeEventTopics({ abi: [transferEvent], eventName: 'Transfer', args: { from: executed.authorizer, to: getAddress(executed.to) } }),
            },
          ],
        };
      },
    } as unknown as SettlementChainClient,
  };
  return chain;
}
