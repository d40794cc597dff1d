import * as root from '@tollgate/core';
import * as gateway from '@tollgate/core/gateway';
import { describe, expect, it } from 'vitest';

// The package root exports the gateway's embedding surface only; its building blocks are reachable from
// `@tollgate/core/gateway` alone, so they can change without breaking embedders. A root that re-exports
// the whole gateway room again (or quietly adds one more building block) fails here.

/** Every run-time value of the gateway room that the root exports, on purpose (see src/index.ts). */
const embeddingSurface = [
  'createGateway',
  'gatewayRoutes',
  'defaultGatewayRateLimits',
  'createSqlGatewayStores',
  'gatewayMigrations',
  'createNetworkRegistry',
  'defaultNetworks',
  'parseGatewaySecret',
  'deriveGatewayKeys',
  'gatewaySecretBytes',
  'createRpcClients',
  'createChainHealthProbe',
  'createViemWalletSignatureVerifier',
  'createGatewayEvents',
  'defaultPaymentSettings',
  'resolvePaymentSettings',
  'settlementRecoveryQueue',
  'notificationQueue',
  'createNotificationDeliverer',
  'NotificationTransportError',
];

/** Building blocks of the payment path, the stores, the routes and the caches. */
const buildingBlocks = [
  'createSettlement',
  'createPayments',
  'createPaymentChecks',
  'createPaymentContexts',
  'createNegotiation',
  'createPaymentEvidence',
  'searchSettlementEvidence',
  'createSettlementRecovery',
  'enqueueSettlementRecovery',
  'createReceiptIssuer',
  'createBoundedCache',
  'createSqlPaymentStore',
  'createSqlMerchantStore',
  'createSqlRefStore',
  'receiveRoutes',
  'merchantRoutes',
  'refRoutes',
  'createBearerAuth',
  'createRegistrationService',
  'createRefService',
  'deriveNotifyHmacKey',
  'networkDefinitionSchema',
];

// Types leave nothing at run time, so typecheck (tsc covers test/) proves these stay off the root.
// @ts-expect-error PaymentRecord is a row of the payment store, a building block.
import type { PaymentRecord as _PaymentRecord } from '@tollgate/core';
// @ts-expect-error Payments is the payment path's internal wiring.
import type { Payments as _Payments } from '@tollgate/core';

describe('@tollgate/core root surface', () => {
  it('exports the embedding surface from the root and from /gateway, as the same objects', () => {
    const rootExports: Record<string, unknown> = root;
    const gatewayExports: Record<string, unknown> = gateway;
    for (const name of embeddingSurface) {
      expect(gatewayExports[name], `/gateway ${name}`).toBeDefined();
      expect(rootExports[name], `root ${name}`).toBe(gatewayExports[name]);
    }
  });

  it('keeps the building blocks behind /gateway', () => {
    for (const name of buildingBlocks) {
      expect(Object.keys(gateway), `/gateway ${name}`).toContain(name);
      expect(Object.keys(root), `root ${name}`).not.toContain(name);
    }
  });

  it('exports no other value of the gateway room from the root', () => {
    const shared = Object.keys(gateway).filter((name) => name in root);
    expect(shared.sort()).toEqual([...embeddingSurface].sort());
  });
});
