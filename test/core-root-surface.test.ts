import { fileURLToPath } from 'node:url';
import * as root from '@tollgate/core';
import * as cbor from '@tollgate/core/cbor';
import * as chain from '@tollgate/core/chain';
import * as config from '@tollgate/core/config';
import * as crypto from '@tollgate/core/crypto';
import * as gateway from '@tollgate/core/gateway';
import * as http from '@tollgate/core/http';
import * as license from '@tollgate/core/license';
import * as storage from '@tollgate/core/storage';
import * as x402 from '@tollgate/core/x402';
// errors, time and json have no subpath: they are small enough to live in the root whole.
import * as errors from '../packages/core/src/errors';
import * as json from '../packages/core/src/json';
import * as time from '../packages/core/src/time';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The package root is curated: the two composition roots and what most embedders need, at most 150 names
// (types included), each with TSDoc. Every other building block is reachable from the subpath of its
// room alone, so it can change without breaking embedders. A root that re-exports a whole room again (or
// quietly adds one more building block) fails here.

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

  it('exports every root value as the same object as the subpath of its room', () => {
    const rooms: Record<string, Record<string, unknown>> = { cbor, chain, config, crypto, gateway, http, license, storage, x402, errors, json, time };
    for (const [name, value] of Object.entries(root as Record<string, unknown>)) {
      const homes = Object.entries(rooms).filter(([, exports]) => name in exports);
      expect(homes.length, `${name} has no room`).toBeGreaterThan(0);
      for (const [room, exports] of homes) expect(exports[name], `${name} in /${room}`).toBe(value);
    }
  });

  it('keeps the license service\'s building blocks behind /license', () => {
    for (const name of ['signArtifact', 'verifyArtifact', 'createSqlLicenseStore', 'createSqlAuditLog', 'licenseClientTable', 'createLicenseTrust', 'encodeLicenseMessage']) {
      expect(Object.keys(license), `/license ${name}`).toContain(name);
      expect(Object.keys(root), `root ${name}`).not.toContain(name);
    }
    for (const name of ['createLicenseService', 'licenseMigrations', 'bootstrapVendor', 'defaultLicenseServiceOptions']) expect(root[name as keyof typeof root], name).toBe(license[name as keyof typeof license]);
  });

  it('holds the root to at most 150 names, types included, each with TSDoc', () => {
    const entry = fileURLToPath(new URL('../packages/core/src/index.ts', import.meta.url));
    const program = ts.createProgram([entry], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, skipLibCheck: true, noEmit: true, types: [] });
    const checker = program.getTypeChecker();
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    const names = checker.getExportsOfModule(moduleSymbol);
    expect(names.length).toBeLessThanOrEqual(150);
    const undocumented = names
      .filter((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === '';
      })
      .map((symbol) => symbol.name);
    expect(undocumented).toEqual([]);
  });
});
