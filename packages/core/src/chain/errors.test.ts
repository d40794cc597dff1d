import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TollgateError } from '../errors/base';
import { ChainReadError, chainRead } from './index';

afterEach(() => {
  vi.useRealTimers();
});

describe('chainRead', () => {
  it('returns the read result', async () => {
    await expect(chainRead('eth_blockNumber', 1_000, async () => 42n)).resolves.toBe(42n);
  });

  it('turns a read that outlives its deadline into ChainReadError(timeout)', async () => {
    vi.useFakeTimers();
    const pending = chainRead('eth_getLogs', 5_000, () => new Promise<never>(() => undefined));
    const outcome = expect(pending).rejects.toMatchObject({ code: 'rpc_unavailable', details: { operation: 'eth_getLogs', failure: 'timeout' } });
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
  });

  it('classifies viem transport, timeout and JSON-RPC errors, also when wrapped', async () => {
    const transport = new HttpRequestError({ url: 'http://127.0.0.1:1', details: 'fetch failed' });
    const timeout = new TimeoutError({ body: {}, url: 'http://127.0.0.1:1' });
    const rpc = new RpcRequestError({ body: {}, error: { code: -32000, message: 'execution reverted' }, url: 'http://127.0.0.1:1' });
    const wrapped = new Error('contract call failed', { cause: transport });
    const failures = [];
    for (const error of [transport, timeout, rpc, wrapped]) {
      const caught = await chainRead('eth_call', 1_000, () => Promise.reject(error)).catch((e: unknown) => e);
      expect(caught).toBeInstanceOf(ChainReadError);
      expect((caught as ChainReadError).cause).toBe(error);
      failures.push((caught as ChainReadError).details.failure);
    }
    expect(failures).toEqual(['transport', 'timeout', 'rpc', 'transport']);
  });

  it('is a TollgateError with the gateway code rpc_unavailable and a retry hint', () => {
    const error = new ChainReadError('eth_call', 'rpc', new Error('x'));
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ name: 'ChainReadError', code: 'rpc_unavailable', retryAfterSeconds: 5 });
    expect(error.message).toBe('Chain read eth_call was refused by the node.');
  });
});
