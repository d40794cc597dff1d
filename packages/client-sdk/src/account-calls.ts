import { decodeLicenseMessage, encodeLicenseMessage, isArtifactError, type AccountSession } from '@tollgate/core/license';
import { LicenseRequestError } from './errors';
import { postLicenseMessage, type LicenseServerOptions } from './protocol-http';

/**
 * Where and how the account calls reach the license server (the same options as every client call).
 *
 * @example
 * ```ts
 * import type { AccountCallOptions } from '@tollgate/client-sdk';
 * const options: AccountCallOptions = { baseUrl: 'https://license.example.com' };
 * ```
 */
export type AccountCallOptions = LicenseServerOptions;

/** What {@link login} sends. The password is sent once over TLS and never kept by the SDK. */
export interface LoginCredentials {
  readonly productId: string;
  readonly email: string;
  readonly password: string;
}

function readSession({ status, bytes }: { status: number; bytes: Uint8Array }): AccountSession {
  try {
    return decodeLicenseMessage('account-session', bytes);
  } catch (error) {
    if (!isArtifactError(error)) throw error;
    throw new LicenseRequestError('unexpected_response', `The license server sent a malformed AccountSession: ${error.message}`, { status, cause: error });
  }
}

/**
 * `POST /v1/account/login`: exchanges an account's email and password for a session. Present
 * `session.accessToken` as the activation credential (`{1: access_token}` of the ActivationRequest) before
 * `accessExpiresAt`;
 * keep `session.refreshToken` in the platform's secret store to {@link refresh} it later.
 *
 * @param options - Server and fetch.
 * @param credentials - Product, email and password.
 * @returns The session (unsigned: it is a pair of bearer secrets, checked for shape only).
 * @throws {@link LicenseRequestError}: 1000 (401) for wrong credentials, 1005 (429) while the login gate is
 *   locked (`retryAfterSeconds` says how long), 5000, `network_error`, `unexpected_response`; `ArtifactError`
 *   `invalid_payload` before any request when the credentials break the LoginRequest layout (an email of
 *   3–254 bytes, a password of 1–1,024 bytes).
 * @example
 * ```ts
 * import { login } from '@tollgate/client-sdk';
 * const session = await login({ baseUrl: 'https://license.example.com' }, { productId: 'acme-editor', email, password });
 * ```
 */
export async function login(options: AccountCallOptions, credentials: LoginCredentials): Promise<AccountSession> {
  const body = encodeLicenseMessage('login-request', { protoVersion: 1, productId: credentials.productId, email: credentials.email, password: credentials.password });
  return readSession(await postLicenseMessage(options, '/v1/account/login', body, 200));
}

/**
 * `POST /v1/account/refresh`: rotates the pair. The old refresh token is spent from then on: presenting
 * it again (even from a second refresh racing this one) revokes the whole session, so an app refreshes
 * one at a time and stores the new refresh token before using the new access token.
 *
 * @param options - Server and fetch.
 * @param refreshToken - The current refresh token (32 bytes).
 * @returns The new session.
 * @throws {@link LicenseRequestError}: 1003 (401) when the session ended (log in again), 5000,
 *   `network_error`, `unexpected_response`.
 * @example
 * ```ts
 * import { refresh } from '@tollgate/client-sdk';
 * const next = await refresh({ baseUrl }, session.refreshToken);
 * ```
 */
export async function refresh(options: AccountCallOptions, refreshToken: Uint8Array): Promise<AccountSession> {
  const body = encodeLicenseMessage('refresh-request', { protoVersion: 1, refreshToken });
  return readSession(await postLicenseMessage(options, '/v1/account/refresh', body, 200));
}

/**
 * `POST /v1/account/logout`: ends the session the refresh token belongs to (its access token stops
 * working at once). Succeeds whether or not the server knew the token; machines already activated stay
 * activated (deactivate them to free their seats).
 *
 * @param options - Server and fetch.
 * @param refreshToken - The session's refresh token (32 bytes).
 * @throws {@link LicenseRequestError} for transport failures only (5000, `network_error`).
 * @example
 * ```ts
 * import { logout } from '@tollgate/client-sdk';
 * await logout({ baseUrl }, session.refreshToken);
 * ```
 */
export async function logout(options: AccountCallOptions, refreshToken: Uint8Array): Promise<void> {
  const body = encodeLicenseMessage('logout-request', { protoVersion: 1, refreshToken });
  await postLicenseMessage(options, '/v1/account/logout', body, 204);
}
