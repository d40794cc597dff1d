/**
 * A bench for the device routes of the client protocol: a real license server (PGlite or the PostgreSQL
 * server) with the Admin harness's two vendors, devices that sign their requests like the SDK does, and
 * helpers that post them over HTTP and verify the signed answers against the server's keyset.
 */
import type { StartLicenseOptions } from '@tollgate/license-server';
import { expect } from 'vitest';
import { hexEncode, type Signer } from '@tollgate/core';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import {
  decodeLicenseMessage,
  inspectArtifact,
  verifyEpochCertificate,
  signDeviceRequest,
  verifyArtifact,
  type ArtifactKind,
  type ArtifactPayloads,
  type ClientInfo,
  type DeviceRequestKind,
  type TelemetryBlock,
  type UnsignedDeviceRequest,
  type ErrorBody,
  type OfflineResponse,
} from '@tollgate/core/license';
import { verifyArtifact as verifyAsSdk } from '@tollgate/client-sdk';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import type { TestEngine } from '@tollgate/core/testing';
import { freshKey as freshAdminKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { currentKeyset, issueLicenses, readFeed, seedPolicy } from '../admin/admin-license-fixtures';
import { protoHeaders } from '../helpers';

/** A device: its Ed25519 key (which signs its requests), KEM key and fingerprint. */
export interface Device {
  readonly signer: Signer;
  readonly publicKey: Uint8Array;
  readonly kemKey: Uint8Array;
  readonly fingerprint: Uint8Array;
}

/** A fresh device; `fingerprint` reuses another device's fingerprint (a reinstall on the same machine). */
export function newDevice(fingerprint: Uint8Array = randomBytes(32)): Device {
  const signer = createNodeEd25519Signer({
    privateKey: randomBytes(32),
    kid: 'device',
  });
  return {
    signer,
    publicKey: signer.publicKey,
    kemKey: randomBytes(32),
    fingerprint,
  };
}

/** What the bench's devices report by default. */
export const defaultClientInfo: ClientInfo = {
  appVersion: '1.0.0',
  sdkVersion: '0.1.0',
  os: 'linux',
  arch: 'x64',
};

/** One HTTP answer, body as bytes. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
}

/** POSTs a CBOR body to `path` with `X-LS-Proto: 1` (and `headers`). */
export async function postCbor(url: string, path: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(new URL(path, url), {
    method: 'POST',
    headers: {
      ...protoHeaders,
      'content-type': 'application/cbor',
      ...headers,
    },
    body: body as BodyInit,
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

/** The code (key 0) of a CBOR error body. */
export function errorCode(answer: RawAnswer): number | undefined {
  const decoded = decodeCanonical(answer.bytes);
  return decoded instanceof Map ? (decoded.get(0) as number) : undefined;
}

/** How a device activates. */
export type ActivationCredentialInput = { licenseKey: string } | { accountToken: Uint8Array };

/** Options of an activation or offline request. */
export interface ActivationOptions {
  productId?: string;
  nonce?: Uint8Array;
  clientInfo?: ClientInfo;
  /** Idempotency-Key; a fresh one by default, `null` for none. */
  key?: string | null;
  /** Another URL (a second server instance). */
  url?: string;
}

let keyCounter = 0;
const freshKey = () => `client-test-${process.pid}-${++keyCounter}-${Math.random().toString(36).slice(2)}`;

/** The signed body of an activation (or offline) request. */
export async function activationBody(
  kind: 'activation-request' | 'offline-request',
  device: Device,
  credential: ActivationCredentialInput,
  productId: string,
  options: ActivationOptions = {},
): Promise<Uint8Array> {
  const request: UnsignedDeviceRequest<'activation-request'> = {
    protoVersion: 1,
    productId: options.productId ?? productId,
    credential,
    fingerprint: device.fingerprint,
    devicePublicKey: device.publicKey,
    deviceKemKey: device.kemKey,
    nonce: options.nonce ?? randomBytes(32),
    clientTime: Math.floor(Date.now() / 1000),
    clientInfo: options.clientInfo ?? defaultClientInfo,
  };
  return signDeviceRequest(kind, request, device.signer);
}

/** Where a device's later requests point: the license and machine of its credential. */
export interface Seat {
  readonly licenseId: Uint8Array;
  readonly machineId: Uint8Array;
}

/** Options of a validate request. */
export interface ValidateOptions {
  fingerprint?: Uint8Array;
  nonce?: Uint8Array;
  knownRevocationEpoch?: number;
  knownSecurityFloor?: number;
  clientInfo?: ClientInfo;
  telemetry?: TelemetryBlock;
  /** Signs with this device instead (a forged proof). */
  signer?: Signer;
  /** `client_time` (unix seconds): now by default. */
  clientTime?: number;
}

/** The signed body of a validate request. */
export async function validateBody(device: Device, seat: Seat, productId: string, options: ValidateOptions = {}): Promise<Uint8Array> {
  const request: UnsignedDeviceRequest<'validate-request'> = {
    protoVersion: 1,
    productId,
    licenseId: seat.licenseId,
    machineId: seat.machineId,
    fingerprint: options.fingerprint ?? device.fingerprint,
    nonce: options.nonce ?? randomBytes(32),
    clientTime: options.clientTime ?? Math.floor(Date.now() / 1000),
    knownRevocationEpoch: options.knownRevocationEpoch ?? 0,
    knownSecurityFloor: options.knownSecurityFloor ?? 0,
    clientInfo: options.clientInfo ?? defaultClientInfo,
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
  };
  return signDeviceRequest('validate-request', request, options.signer ?? device.signer);
}

/** The signed body of a heartbeat or deactivate request. */
export async function sessionBody(
  kind: 'heartbeat-request' | 'deactivate-request',
  device: Device,
  seat: Seat,
  productId: string,
  options: { nonce?: Uint8Array; signer?: Signer } = {},
): Promise<Uint8Array> {
  const request: UnsignedDeviceRequest<DeviceRequestKind & typeof kind> = {
    protoVersion: 1,
    productId,
    licenseId: seat.licenseId,
    machineId: seat.machineId,
    nonce: options.nonce ?? randomBytes(32),
    clientTime: Math.floor(Date.now() / 1000),
  };
  return signDeviceRequest(kind, request, options.signer ?? device.signer);
}

/** The bench. */
export interface ClientBench {
  readonly admin: AdminHarness;
  readonly url: string;
  /** Vendor A's product. */
  readonly productId: string;
  activate(device: Device, credential: ActivationCredentialInput, options?: ActivationOptions): Promise<RawAnswer>;
  offline(device: Device, credential: ActivationCredentialInput, options?: ActivationOptions): Promise<RawAnswer>;
  validate(device: Device, seat: Seat, options?: ValidateOptions): Promise<RawAnswer>;
  heartbeat(device: Device, seat: Seat, options?: { nonce?: Uint8Array; signer?: Signer }): Promise<RawAnswer>;
  deactivate(device: Device, seat: Seat, options?: { nonce?: Uint8Array; key?: string | null; signer?: Signer }): Promise<RawAnswer>;
  /** Verifies a signed answer against the server's keyset as a client would; returns its payload. */
  verify<Kind extends Exclude<ArtifactKind, 'epoch-certificate'>>(bytes: Uint8Array, kind: Kind): Promise<ArtifactPayloads[Kind]>;
  /** Activates and returns the verified credential's seat. */
  seat(device: Device, credential: ActivationCredentialInput): Promise<Seat>;
  close(): Promise<void>;
}

const keyHeader = (key: string | null | undefined): Record<string, string> => (key === null ? {} : { 'idempotency-key': key ?? freshKey() });

/**
 * Opens the bench on `engine`. Rate limits are off unless `env` sets them (the race and fuzz cases send
 * hundreds of requests from one address).
 */
export async function openClientBench(engine: TestEngine, env: Record<string, string> = {}, serverOptions: StartLicenseOptions = {}): Promise<ClientBench> {
  const admin = await openAdminHarness(
    engine,
    {
      LICENSE_RATE_LIMIT_PER_ADDRESS: 'off',
      LICENSE_RATE_LIMIT_PER_LICENSE: 'off',
      ...env,
    },
    serverOptions,
  );
  const productId = admin.vendorA.productId;
  const bench: ClientBench = {
    admin,
    url: admin.url,
    productId,
    async activate(device, credential, options = {}) {
      return postCbor(options.url ?? admin.url, '/v1/activate', await activationBody('activation-request', device, credential, productId, options), keyHeader(options.key));
    },
    async offline(device, credential, options = {}) {
      return postCbor(options.url ?? admin.url, '/v1/offline/request', await activationBody('offline-request', device, credential, productId, options), keyHeader(options.key));
    },
    async validate(device, seat, options = {}) {
      return postCbor(admin.url, '/v1/validate', await validateBody(device, seat, productId, options));
    },
    async heartbeat(device, seat, options = {}) {
      return postCbor(admin.url, '/v1/heartbeat', await sessionBody('heartbeat-request', device, seat, productId, options));
    },
    async deactivate(device, seat, options = {}) {
      return postCbor(admin.url, '/v1/deactivate', await sessionBody('deactivate-request', device, seat, productId, options), keyHeader(options.key));
    },
    async verify(bytes, kind) {
      const keys = await currentKeyset(admin);
      return verifyArtifact(bytes, kind, {
        keys,
        productId,
        now: Math.floor(Date.now() / 1000),
      }).payload;
    },
    async seat(device, credential) {
      const answer = await bench.activate(device, credential);
      if (answer.status !== 200) throw new Error(`activation answered ${answer.status} (code ${errorCode(answer)})`);
      const payload = await bench.verify(answer.bytes, 'machine-credential');
      return { licenseId: payload.licenseId, machineId: payload.machineId };
    },
    close: () => admin.close(),
  };
  return bench;
}

/* ------------------------------------------------------------------------------------------------ *
 * Additions for the activation and offline suites (l1). Everything above stays as it is.
 * ------------------------------------------------------------------------------------------------ */

/**
 * POSTs `body` with full control of the headers: `X-LS-Proto: 1` and `Content-Type: application/cbor`
 * by default, a header set to `undefined` is left out (a request without `X-LS-Proto`, say).
 */
export async function postRaw(url: string, path: string, body: Uint8Array, headers: Record<string, string | undefined> = {}): Promise<RawAnswer> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...protoHeaders,
    'content-type': 'application/cbor',
    ...headers,
  }))
    if (value !== undefined) merged[name] = value;
  const response = await fetch(new URL(path, url), {
    method: 'POST',
    headers: merged,
    body: body as BodyInit,
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

/**
 * The error map of an answer, checked as a client would: canonical CBOR, keys 0 (code), 1? (message),
 * 2? (retry_after) and nothing else (`decodeLicenseMessage('error-body')` refuses any other key).
 */
export function clientError(answer: RawAnswer): ErrorBody {
  expect(answer.headers.get('content-type')).toMatch(/^application\/cbor/);
  return decodeLicenseMessage('error-body', answer.bytes);
}

/** Asserts an answer is the CBOR error `code` with HTTP `status`; returns the decoded body. */
export function expectClientError(answer: RawAnswer, code: number, status: number): ErrorBody {
  const body = clientError(answer);
  expect({ status: answer.status, code: body.code }, body.message).toEqual({
    status,
    code,
  });
  return body;
}

/** A license issued through the Admin API. */
export interface IssuedLicense {
  readonly licenseId: string;
  readonly key: string;
  readonly policyId: string;
}

/**
 * Issues one license of vendor A's product under a fresh policy: `terms` override the policy (3 seats,
 * offline allowed by default), `issue` the issue request (`account_id`, `seats_override`, …).
 */
export async function issueClientLicense(bench: ClientBench, terms: Record<string, unknown> = {}, issue: Record<string, unknown> = {}): Promise<IssuedLicense> {
  const policyId = await seedPolicy(bench.admin, bench.admin.vendorA, terms);
  const [license] = await issueLicenses(bench.admin, policyId, issue);
  if (license === undefined) throw new Error('no license issued');
  return { licenseId: license.license_id, key: license.key, policyId };
}

/** An account of vendor A's product, signed in through `POST /v1/account/login`. */
export interface SignedInAccount {
  readonly accountId: string;
  readonly email: string;
  readonly accessToken: Uint8Array;
}

let accountCounter = 0;

/** Creates an account through the Admin API (`max_devices` as given) and signs it in over HTTP. */
export async function signedInAccount(bench: ClientBench, options: { maxDevices?: number } = {}): Promise<SignedInAccount> {
  const email = `device-${process.pid}-${(accountCounter += 1)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'correct horse battery staple';
  const created = await bench.admin.call('POST', '/accounts', {
    key: freshAdminKey(),
    body: {
      product_id: bench.productId,
      email,
      password,
      ...(options.maxDevices === undefined ? {} : { max_devices: options.maxDevices }),
    },
  });
  if (created.status !== 201) throw new Error(`account create answered ${created.status}: ${created.text}`);
  const login = new Map<CborKey, CborValue>([
    [0, 1],
    [1, bench.productId],
    [2, email],
    [3, password],
  ]);
  const answer = await postRaw(bench.url, '/v1/account/login', encodeCanonical(login));
  if (answer.status !== 200) throw new Error(`login answered ${answer.status}`);
  return {
    accountId: created.body.account.account_id,
    email,
    accessToken: decodeLicenseMessage('account-session', answer.bytes).accessToken,
  };
}

/**
 * Verifies a signed answer the way the SDK does: `verifyArtifact` of `@tollgate/client-sdk` with the
 * keyset the server serves (checked against its pinned roots) and the epochs its revocation feed revoked.
 */
export async function verifyAsClient<Kind extends Exclude<ArtifactKind, 'epoch-certificate'>>(bench: ClientBench, bytes: Uint8Array, kind: Kind): Promise<ArtifactPayloads[Kind]> {
  const keys = await currentKeyset(bench.admin);
  const revokedEpochIds = (await readFeed(bench.admin)).flatMap((batch) => batch.epochIds.map((id) => hexEncode(id)));
  return verifyAsSdk(bytes, kind, keys, {
    productId: bench.productId,
    revokedEpochIds,
  }).payload;
}

/**
 * Verifies an offline answer as an air-gapped device does: with the certificates it carries, checked
 * against the pinned roots alone (no keyset fetch), then the credential inside with the same epoch.
 */
export function verifyOfflineAnswer(
  bench: ClientBench,
  bytes: Uint8Array,
  now = Math.floor(Date.now() / 1000),
): {
  answer: OfflineResponse;
  credential: ArtifactPayloads['machine-credential'];
} {
  const pinnedRoots = bench.admin.server.context.pinnedRoots;
  const epochs = new Map<string, ReturnType<typeof verifyEpochCertificate>>();
  // The certificates ride inside the signed payload: read them (unverified) to build the key source, then verify.
  const payload = decodeCanonical(inspectArtifact(bytes).parts.payload) as Map<number, unknown>;
  for (const certificate of payload.get(3) as Uint8Array[]) {
    const epoch = verifyEpochCertificate(certificate, { pinnedRoots, at: now });
    epochs.set(epoch.epochIdHex, epoch);
  }
  const keys = { epochs };
  const answer = verifyAsSdk(bytes, 'offline-response', keys, {
    productId: bench.productId,
    revokedEpochIds: [],
    now,
  }).payload;
  const credential = verifyAsSdk(answer.credential, 'machine-credential', keys, { productId: bench.productId, revokedEpochIds: [], now }).payload;
  return { answer, credential };
}

/**
 * Starts another license server instance on the bench's database (PostgreSQL only: same data dir,
 * same master key, same dev root) with rate limits off; the sandbox closes it with the bench.
 */
export async function startSecondInstance(bench: ClientBench, env: Record<string, string> = {}): Promise<string> {
  const server = await bench.admin.sandbox.start({
    LICENSE_RATE_LIMIT_PER_ADDRESS: 'off',
    LICENSE_RATE_LIMIT_PER_LICENSE: 'off',
    ...env,
  });
  return server.url;
}
