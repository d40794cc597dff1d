import * as v from 'valibot';
import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, productIdSchema, protoVersionSchema, textSchema, uintSchema } from '../schemas';

/**
 * Answer to `POST /v1/heartbeat`: `{0: 1, 1: ok, 2: next_after, 3: nonce_echo}`. Unsigned: it only
 * paces the next heartbeat.
 */
export interface HeartbeatResponse {
  protoVersion: 1;
  ok: boolean;
  nextAfter: number;
  nonceEcho: Uint8Array;
}

/** Layout of {@link HeartbeatResponse}. */
export const heartbeatResponseSpec: CborRecordSpec<HeartbeatResponse> = cborRecord('HeartbeatResponse', {
  protoVersion: field(0, protoVersionSchema),
  ok: field(1, v.boolean('expected a boolean')),
  nextAfter: field(2, uintSchema),
  nonceEcho: field(3, bytesSchema(licenseWireLengths.nonce)),
});

/** Answer to `POST /v1/deactivate`: `{0: 1, 1: true, 2: nonce_echo}`; the seat is released. */
export interface DeactivateResponse {
  protoVersion: 1;
  ok: true;
  nonceEcho: Uint8Array;
}

/** Layout of {@link DeactivateResponse}. */
export const deactivateResponseSpec: CborRecordSpec<DeactivateResponse> = cborRecord('DeactivateResponse', {
  protoVersion: field(0, protoVersionSchema),
  ok: field(1, v.literal(true, 'expected true')),
  nonceEcho: field(2, bytesSchema(licenseWireLengths.nonce)),
});

/** `POST /v1/account/login`: `{0: 1, 1: product_id, 2: email, 3: password}`. */
export interface LoginRequest {
  protoVersion: 1;
  productId: string;
  email: string;
  password: string;
}

/** Layout of {@link LoginRequest}: email at most 254 bytes, password 1–1,024 bytes. */
export const loginRequestSpec: CborRecordSpec<LoginRequest> = cborRecord('LoginRequest', {
  protoVersion: field(0, protoVersionSchema),
  productId: field(1, productIdSchema),
  email: field(2, textSchema(3, 254)),
  password: field(3, textSchema(1, 1024)),
});

/** `POST /v1/account/refresh` and `POST /v1/account/logout`: `{0: 1, 1: refresh_token}`. */
export interface RefreshTokenRequest {
  protoVersion: 1;
  refreshToken: Uint8Array;
}

/** Layout of the refresh request. */
export const refreshRequestSpec: CborRecordSpec<RefreshTokenRequest> = cborRecord('RefreshRequest', {
  protoVersion: field(0, protoVersionSchema),
  refreshToken: field(1, bytesSchema(licenseWireLengths.token)),
});

/** Layout of the logout request (same fields as refresh; logout always succeeds). */
export const logoutRequestSpec: CborRecordSpec<RefreshTokenRequest> = cborRecord('LogoutRequest', {
  protoVersion: field(0, protoVersionSchema),
  refreshToken: field(1, bytesSchema(licenseWireLengths.token)),
});

/**
 * Answer to login and refresh: a bearer pair, rotated on every refresh.
 * `{0: 1, 1: access_token, 2: refresh_token, 3: access_expires_at, 4: refresh_expires_at}`.
 */
export interface AccountSession {
  protoVersion: 1;
  accessToken: Uint8Array;
  refreshToken: Uint8Array;
  accessExpiresAt: number;
  refreshExpiresAt: number;
}

/** Layout of {@link AccountSession}. */
export const accountSessionSpec: CborRecordSpec<AccountSession> = cborRecord('AccountSession', {
  protoVersion: field(0, protoVersionSchema),
  accessToken: field(1, bytesSchema(licenseWireLengths.token)),
  refreshToken: field(2, bytesSchema(licenseWireLengths.token)),
  accessExpiresAt: field(3, uintSchema),
  refreshExpiresAt: field(4, uintSchema),
});
