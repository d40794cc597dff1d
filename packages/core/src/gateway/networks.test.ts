import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createNetworkRegistry, defaultNetworks, GatewayError } from '@tollgate/core';
import { networkDefinitionSchema } from '@tollgate/core/gateway';

describe('network registry', () => {
  it('maps names, CAIP-2 ids and chain ids of the default networks with their USDC domains', () => {
    const networks = createNetworkRegistry();
    expect(networks.networks.map((network) => network.name)).toEqual(['base', 'base-sepolia', 'local']);
    expect(networks.require('base')).toEqual({
      name: 'base',
      caip2: 'eip155:8453',
      chainId: 8453,
      usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 },
    });
    expect(networks.byCaip2('eip155:84532')?.usdc).toMatchObject({ name: 'USDC', version: '2' });
    expect(networks.byChainId(31337)?.usdc.address).toBe('0x1415166C7d37129d18B915707E46Aa0cccD0b439');
    expect(networks.byName('ethereum')).toBeUndefined();
    expect(defaultNetworks).toHaveLength(3);
  });

  it('refuses an unknown network with invalid_request naming the supported ones', () => {
    const networks = createNetworkRegistry();
    let caught: unknown;
    try {
      networks.require('solana');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect(caught).toMatchObject({ code: 'invalid_request', details: { field: 'network', supported: ['base', 'base-sepolia', 'local'] } });
  });

  it('overrides the local USDC address and adds configured networks', () => {
    const polygon = v.parse(networkDefinitionSchema, {
      name: 'polygon',
      chainId: 137,
      usdc: { address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', name: 'USD Coin', version: '2' },
    });
    const networks = createNetworkRegistry({ extra: [polygon], localUsdc: '0x5fbdb2315678afecb367f032d93f642f64180aa3' });
    expect(networks.require('local').usdc.address).toBe('0x5FbDB2315678afecb367f032d93F642f64180aa3');
    expect(networks.byCaip2('eip155:137')).toMatchObject({ name: 'polygon', usdc: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 } });
    expect(Object.isFrozen(networks.require('polygon').usdc)).toBe(true);
  });

  it('refuses duplicate names or chain ids and malformed definitions', () => {
    const duplicate = { ...defaultNetworks[0]!, name: 'base2' };
    expect(() => createNetworkRegistry({ extra: [duplicate] })).toThrow(/share chain id 8453/);
    expect(() => createNetworkRegistry({ extra: [{ ...duplicate, name: 'base', chainId: 1, caip2: 'eip155:1' }] })).toThrow(/defined twice/);
    expect(() => createNetworkRegistry({ localUsdc: '0x123' })).toThrow(/not an EVM address/);
    expect(v.safeParse(networkDefinitionSchema, { name: 'Poly', chainId: 137, usdc: { address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', name: 'x', version: '2' } }).success).toBe(false);
    expect(v.safeParse(networkDefinitionSchema, { name: 'poly', chainId: 0, usdc: { address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', name: 'x', version: '2' } }).success).toBe(false);
    expect(v.safeParse(networkDefinitionSchema, { name: 'poly', chainId: 137, usdc: { address: 'nope', name: 'x', version: '2' } }).success).toBe(false);
  });
});
