import { GatewayError } from '../../errors/gateway';
import { renderGatewayError } from '../../errors/render';
import type { HttpRequest, Middleware } from '../../http/types';
import type { AuthenticatedMerchant, MerchantAccountService } from '../merchants/account-service';

/** Bearer authentication of merchant routes (`Authorization: Bearer <API key>`). */
export interface BearerAuth {
  /**
   * Route middleware: refuses a request without a valid API key with `unauthorized` (401 and
   * `WWW-Authenticate: Bearer`) before its body is read.
   */
  readonly required: Middleware;
  /** The merchant of a request (authenticated once per request even when called again). */
  merchantOf(request: HttpRequest): Promise<AuthenticatedMerchant>;
  /** The merchant when the request carries an `Authorization` header, `undefined` when it has none. */
  optionalMerchantOf(request: HttpRequest): Promise<AuthenticatedMerchant | undefined>;
}

const bearerPattern = /^Bearer +(\S+) *$/i;
const challengeHeader = { 'www-authenticate': 'Bearer realm="tollgate-gateway"' };

function unauthorized(message: string): GatewayError {
  return new GatewayError('unauthorized', message, { details: { scheme: 'Bearer' } });
}

/**
 * Builds bearer authentication over the account service. Missing, malformed, unknown and revoked keys
 * are all `unauthorized`; the message says which, the key itself is never echoed or logged.
 *
 * The middleware's result reaches the handler through a per-request cache keyed by the request's
 * header object (the engine hands the handler the same headers the middleware saw); if it is ever
 * missing, `merchantOf` simply authenticates again, so correctness never depends on it.
 *
 * @param accounts - Anything that can authenticate an API key.
 * @returns The middleware and accessors.
 * @example
 * ```ts
 * import { route } from '@tollgate/core/http';
 * import { createBearerAuth } from '@tollgate/core/gateway';
 * const auth = createBearerAuth(accounts);
 * const me = route({ method: 'GET', path: '/merchant/me', middleware: [auth.required],
 *   handler: async (req) => ({ status: 200, body: await accounts.profile(await auth.merchantOf(req)) }) });
 * ```
 */
export function createBearerAuth(accounts: Pick<MerchantAccountService, 'authenticate'>): BearerAuth {
  const cache = new WeakMap<object, Promise<AuthenticatedMerchant>>();

  function authenticate(request: HttpRequest): Promise<AuthenticatedMerchant> {
    let pending = cache.get(request.headers);
    if (pending === undefined) {
      const header = request.headers['authorization'];
      const match = header === undefined ? null : bearerPattern.exec(header);
      pending =
        header === undefined
          ? Promise.reject(unauthorized('This endpoint needs Authorization: Bearer <API key>.'))
          : match === null
            ? Promise.reject(unauthorized('The Authorization header must be "Bearer <API key>".'))
            : accounts.authenticate(match[1] as string);
      // A rejected promise kept in the cache must not count as unhandled.
      pending.catch(() => undefined);
      cache.set(request.headers, pending);
    }
    return pending;
  }

  return {
    required: async (request, next) => {
      try {
        await authenticate(request);
      } catch (error) {
        if (!(error instanceof GatewayError) || error.code !== 'unauthorized') throw error;
        const rendered = renderGatewayError(error);
        return { ...rendered, headers: { ...rendered.headers, ...challengeHeader } };
      }
      return next();
    },
    merchantOf: authenticate,
    optionalMerchantOf: (request) => (request.headers['authorization'] === undefined ? Promise.resolve(undefined) : authenticate(request)),
  };
}
