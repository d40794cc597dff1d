import type { CborValue } from '../../cbor';
import { LicenseClientError } from '../../errors/license-client';
import { route } from '../../http/routes';
import type { BodySpec, HttpResponse, Route } from '../../http/types';
import { isArtifactError } from '../artifact-error';
import type { LicenseMessageKind, LicenseMessages } from '../kinds';
import { decodeLicenseMessage, encodeLicenseMessage } from '../messages';
import { licenseProtocolVersion } from '../protocol';
import type { AccountSessions, IssuedAccountSession } from './account-sessions';

/** The client protocol's body limits: 16 KiB decoded, 64 KiB on the wire when gzip or br. */
const clientBody = { type: 'cbor', maxBytes: 16 * 1024, maxCompressedBytes: 64 * 1024 } as const satisfies BodySpec;

/**
 * Decodes a request message the HTTP layer already parsed as canonical CBOR: a `proto_ver` (key 0) other
 * than 1 is 1004 (426); any other layout failure is 1000 (400) naming the field, never echoing a value.
 */
function decodeRequest<Kind extends 'login-request' | 'refresh-request' | 'logout-request'>(kind: Kind, body: unknown): LicenseMessages[Kind] {
  if (body instanceof Map && body.has(0) && body.get(0) !== licenseProtocolVersion) {
    throw new LicenseClientError(1004, `proto_ver must be ${licenseProtocolVersion}.`);
  }
  try {
    return decodeLicenseMessage(kind, body as CborValue);
  } catch (error) {
    if (isArtifactError(error)) throw new LicenseClientError(1000, error.message, { cause: error });
    throw error;
  }
}

function cborResponse<Kind extends LicenseMessageKind>(kind: Kind, message: LicenseMessages[Kind]): HttpResponse {
  return { status: 200, headers: { 'content-type': 'application/cbor' }, body: encodeLicenseMessage(kind, message) };
}

const sessionResponse = (session: IssuedAccountSession): HttpResponse => cborResponse('account-session', { protoVersion: 1, ...session });

/**
 * The account routes of the client protocol (mount them in the CBOR client table, after the
 * `X-LS-Proto` check):
 *
 * - `POST /v1/account/login` — LoginRequest → 200 AccountSession; wrong credentials (unknown email,
 *   wrong password, revoked account: one answer) → 401 code 1000; a locked login gate → 429 code 1005
 *   with `retry_after` and `Retry-After`.
 * - `POST /v1/account/refresh` — RefreshRequest → 200 AccountSession with both tokens rotated; an
 *   unknown, expired, spent (its family is then revoked) or revoked refresh token → 401 code 1003.
 * - `POST /v1/account/logout` — LogoutRequest → 204 whatever the token (its family is revoked when known).
 *
 * Bodies are canonical CBOR up to 16 KiB (64 KiB gzip/br on the wire); a malformed body is 400 code 1000,
 * a `proto_ver` other than 1 is 426 code 1004.
 *
 * @param sessions - From `createAccountSessions`.
 * @returns The three routes.
 * @example
 * ```ts
 * import { accountSessionRoutes, createAccountSessions } from '@tollgate/core/license';
 * const accountSessions = createAccountSessions({ sql, masterKey });
 * const client = [...healthRoutes(database), ...accountSessionRoutes(accountSessions)];
 * ```
 */
export function accountSessionRoutes(sessions: AccountSessions): Route[] {
  return [
    route({
      method: 'POST',
      path: '/v1/account/login',
      body: clientBody,
      handler: async (request) => {
        const login = decodeRequest('login-request', request.body);
        const outcome = await sessions.login({
          productId: login.productId,
          email: login.email,
          password: login.password,
          ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
        });
        if (outcome.kind === 'locked') {
          throw new LicenseClientError(1005, 'Too many failed logins; retry later.', { retryAfterSeconds: outcome.retryAfterSeconds });
        }
        if (outcome.kind === 'invalid_credentials') throw new LicenseClientError(1000, 'The email or password is wrong.', { status: 401 });
        return sessionResponse(outcome.session);
      },
    }),
    route({
      method: 'POST',
      path: '/v1/account/refresh',
      body: clientBody,
      handler: async (request) => {
        const { refreshToken } = decodeRequest('refresh-request', request.body);
        const outcome = await sessions.refresh(refreshToken);
        if (outcome.kind === 'needs_login') throw new LicenseClientError(1003, 'The session has ended; log in again.');
        return sessionResponse(outcome.session);
      },
    }),
    route({
      method: 'POST',
      path: '/v1/account/logout',
      body: clientBody,
      handler: async (request) => {
        const { refreshToken } = decodeRequest('logout-request', request.body);
        await sessions.logout(refreshToken);
        return { status: 204 };
      },
    }),
  ];
}
