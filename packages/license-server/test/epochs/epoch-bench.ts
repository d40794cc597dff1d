/**
 * A bench for epoch administration: a real license server in dev mode (its dev root signs new epochs),
 * vendor A bootstrapped first and alone (a single-vendor server administers its global epochs), helpers
 * that create pending epochs the way `tollgate-license epoch create` does, sign them with a root and
 * upload them through `POST /v1/admin/epochs`, and the served keyset and feed read as a client would.
 */
import { existsSync } from 'node:fs';
import { bootstrapVendor, hexDecode, hexEncode, unixSeconds, type Clock, type SqlClient } from '@tollgate/core';
import {
  createAdminToken,
  createRootSigner,
  signEpochCertificate,
  splitCborSequence,
  verifyArtifact,
  verifyKeyset,
  type RevocationBatch,
  type AdminScope,
  type BootstrappedVendor,
} from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import type { TestEngine } from '@tollgate/core/testing';
import { loadLicenseConfig, type RunningLicenseServer, type StartLicenseOptions } from '@tollgate/license-server';
import { createEpochRequest, devKeyPaths, resolveMasterKey } from '../../src/ceremony/ceremony';
import { readRootKeyFile } from '../../src/ceremony/key-files';
import { adminCaller, freshKey, type AdminAnswer, type AdminCallOptions, type AdminHarness } from '../admin/admin-harness';
import { openServerSandbox, protoHeaders, type ServerSandbox } from '../helpers';

/** The bench. */
export interface EpochBench {
  readonly server: RunningLicenseServer;
  readonly sandbox: ServerSandbox;
  readonly url: string;
  readonly sql: SqlClient;
  readonly vendorA: BootstrappedVendor;
  /** The dev root's seed (signs certificates like the offline root would); zeros when the server pins real roots. */
  readonly devRootSeed: Uint8Array;
  readonly masterKey: Uint8Array;
  /** Calls `/v1/admin<path>` with vendor A's all-scopes token unless told otherwise. */
  call(method: string, path: string, options?: AdminCallOptions): Promise<AdminAnswer>;
  /** Mints a token of `vendor` holding exactly `scopes`. */
  tokenWith(vendor: BootstrappedVendor, scopes: readonly AdminScope[]): Promise<string>;
  /** Creates a pending epoch (as `epoch create` does); returns its id and certificate request. */
  pendingEpoch(options?: { productScope?: string; days?: number; notBefore?: number }): Promise<{ epochIdHex: string; request: Uint8Array }>;
  /** A pending epoch signed by `rootSeed` (the dev root by default) and uploaded; returns its id. */
  activeEpoch(options?: { productScope?: string; days?: number; rootSeed?: Uint8Array; token?: string }): Promise<string>;
  /** Bootstraps another vendor (the server then hosts several). */
  addVendor(name: string): Promise<BootstrappedVendor>;
  /** The bench as the shared fixtures' `AdminHarness` (vendor B is whoever was added first, if any). */
  asAdminHarness(): AdminHarness;
  close(): Promise<void>;
}

/** Signs a certificate request with a root seed, as `tollgate-license root sign` does. */
export async function signRequest(request: Uint8Array, rootSeed: Uint8Array): Promise<string> {
  return hexEncode(await signEpochCertificate(request, createRootSigner(rootSeed, createNodeEd25519Signer)));
}

/** The public key (hex) of a root seed. */
export const rootPublicHex = (rootSeed: Uint8Array): string => hexEncode(createRootSigner(rootSeed, createNodeEd25519Signer).publicKey);

/**
 * Opens the bench on `engine`.
 *
 * @param engine - PGlite or the PostgreSQL server.
 * @param options - Extra environment and start options (a manual clock).
 * @returns The bench; `close()` it in `afterAll`.
 */
export async function openEpochBench(engine: TestEngine, options: { env?: Record<string, string>; start?: StartLicenseOptions; sandbox?: ServerSandbox } = {}): Promise<EpochBench> {
  const sandbox = options.sandbox ?? (await openServerSandbox(engine));
  const env = { LICENSE_RATE_LIMIT_PER_ADDRESS: 'off', LICENSE_RATE_LIMIT_PER_LICENSE: 'off', ...options.env };
  const server = await sandbox.start(env, options.start ?? {});
  const provisioning = server.context.adminProvisioning;
  const clock: Clock = provisioning.clock;
  const vendorA = await bootstrapVendor(provisioning, { vendor: 'Vendor A', product: 'Product A' });
  const config = loadLicenseConfig({ ...sandbox.env, ...env });
  const masterKey = resolveMasterKey(config).key;
  // Servers started with LICENSE_ROOT_PUBLIC_KEYS have no dev root: their tests sign with their own roots.
  const devRootPath = devKeyPaths(config).root;
  const devRootSeed = existsSync(devRootPath) ? readRootKeyFile(devRootPath).privateKey : new Uint8Array(32);
  const others: BootstrappedVendor[] = [];

  const call = adminCaller(server.url, vendorA.token);

  const bench: EpochBench = {
    server,
    sandbox,
    url: server.url,
    sql: server.context.sql,
    vendorA,
    devRootSeed,
    masterKey,
    call,
    async tokenWith(vendor, scopes) {
      return (await createAdminToken(provisioning, { vendorId: vendor.vendorId, scopes, label: 'epochs test' })).token;
    },
    async pendingEpoch(epochOptions = {}) {
      const { epoch, request } = await createEpochRequest(server.context.sql, {
        masterKey,
        days: epochOptions.days ?? 30,
        clock,
        ...(epochOptions.notBefore === undefined ? { notBefore: unixSeconds(clock) } : { notBefore: epochOptions.notBefore }),
        ...(epochOptions.productScope === undefined ? {} : { productScope: epochOptions.productScope }),
      });
      return { epochIdHex: epoch.epochIdHex, request };
    },
    async activeEpoch(epochOptions = {}) {
      const { epochIdHex, request } = await bench.pendingEpoch(epochOptions);
      const rootSeed = epochOptions.rootSeed ?? devRootSeed;
      const answer = await call('POST', '/epochs', {
        key: freshKey(),
        body: { certificate_hex: await signRequest(request, rootSeed), root_verifying_key_hex: rootPublicHex(rootSeed) },
        ...(epochOptions.token === undefined ? {} : { token: epochOptions.token }),
      });
      if (answer.status !== 200 || answer.body.outcome !== 'activated') throw new Error(`uploading epoch ${epochIdHex} answered ${answer.status}: ${answer.text}`);
      return epochIdHex;
    },
    async addVendor(name) {
      const vendor = await bootstrapVendor(provisioning, { vendor: name, product: `${name} product` });
      others.push(vendor);
      return vendor;
    },
    asAdminHarness() {
      return {
        server,
        sandbox,
        url: server.url,
        sql: server.context.sql,
        vendorA,
        vendorB: others[0] as BootstrappedVendor,
        tokenWith: (vendor, scopes) => bench.tokenWith(vendor, scopes),
        call,
        close: () => sandbox.cleanup(),
      };
    },
    close: () => sandbox.cleanup(),
  };
  return bench;
}

/** Waits (bounded by attempts, not by time) until `check` holds; each round yields to the server. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, attempts = 200): Promise<T> {
  let value = await read();
  for (let round = 0; round < attempts && !check(value); round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}

/** Bytes of a hex string (test shorthand). */
export const bytesOf = (hex: string): Uint8Array => hexDecode(hex);

/** The revocation batches after `since`, verified as a client whose clock is `clock` would. */
export async function readFeedAt(bench: Pick<EpochBench, 'url' | 'server'>, clock: Clock, since = 0): Promise<RevocationBatch[]> {
  const now = unixSeconds(clock);
  const keys = verifyKeyset(new Uint8Array(await (await fetch(`${bench.url}/v1/keys`, { headers: protoHeaders })).arrayBuffer()), bench.server.context.pinnedRoots, now);
  const response = await fetch(`${bench.url}/v1/revocations?since=${since}`, { headers: protoHeaders });
  if (response.status === 204) return [];
  return splitCborSequence(new Uint8Array(await response.arrayBuffer())).map((item) => verifyArtifact(item, 'revocation-batch', { keys, now }).payload);
}
