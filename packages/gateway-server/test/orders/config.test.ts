// GATEWAY_ORDER_MODE: parsed strictly, off by default, on in dev mode (what `npm start` runs) unless set
// off, and passed to the gateway (the order routes are mounted or not).
import { rmSync } from 'node:fs';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, hexEncode } from '@tollgate/core';
import { loadGatewayConfig, startGatewayServer, type RunningGateway } from '@tollgate/gateway-server';
import { call, dataDirFromTemplate, expectError } from '../helpers/gateway';

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('GATEWAY_ORDER_MODE', () => {
  it('is on, off, or unset (undefined: off unless dev mode turns it on)', () => {
    const base = { GATEWAY_DEV_CHAIN: '0' };
    expect(loadGatewayConfig(base).orderMode).toBeUndefined();
    expect(loadGatewayConfig({ ...base, GATEWAY_ORDER_MODE: 'on' }).orderMode).toBe(true);
    expect(loadGatewayConfig({ ...base, GATEWAY_ORDER_MODE: 'off' }).orderMode).toBe(false);
    for (const raw of ['1', 'true', 'ON', 'yes']) {
      let error: unknown;
      try {
        loadGatewayConfig({ ...base, GATEWAY_ORDER_MODE: raw });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([expect.objectContaining({ variable: 'GATEWAY_ORDER_MODE' })]);
    }
  });

  // The dev stack as `npm start` runs it (anvil, test USDC, facilitator) in a temp data dir.
  for (const [label, env, mounted] of [
    ['turns order mode on in dev mode', {}, true],
    ['keeps order mode off in dev mode when GATEWAY_ORDER_MODE=off', { GATEWAY_ORDER_MODE: 'off' }, false],
  ] as const) {
    it(label, async () => {
      const dataDir = await dataDirFromTemplate();
      dataDirs.push(dataDir);
      const config = loadGatewayConfig({
        GATEWAY_PORT: '0',
        TOLLGATE_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        GATEWAY_SECRET: hexEncode(new Uint8Array(32).fill(9)),
        GATEWAY_SIGNING_KEY: generatePrivateKey(),
        ...env,
      });
      expect(config.devChain).toBe(true);
      const gateway: RunningGateway = await startGatewayServer(config);
      try {
        expect(gateway.context.devChain).toBeDefined();
        const response = await call(gateway.url, 'GET', '/order');
        // Mounted: the bearer gate answers; not mounted: no endpoint at this path.
        if (mounted) expectError(response, 401, 'unauthorized');
        else expectError(response, 404, 'not_found');
      } finally {
        await gateway.close();
      }
    }, 120_000);
  }
});
