import { route } from '../../http/routes';
import type { Route } from '../../http/types';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import type { MerchantAccountService } from '../merchants/account-service';
import type { RegistrationService } from '../merchants/registration-service';
import { challengeRequestSchema, credentialRequestSchema, registerRequestSchema } from '../merchants/schemas';
import type { BearerAuth } from './bearer-auth';
import { parseGatewayInput } from './parse-input';
import { gatewayRateLimit, type GatewayRateLimits } from './rate-limit';

/** What the merchant routes need. */
export interface MerchantRouteDeps {
  readonly registration: RegistrationService;
  readonly accounts: MerchantAccountService;
  readonly auth: BearerAuth;
  readonly rateLimiter: RateLimiter;
  readonly rateLimits: GatewayRateLimits;
}

/** Responses that carry secrets, or describe an account, are never cached. */
export const noStore = { 'cache-control': 'no-store' } as const;

/** Body caps: challenges and key requests are tiny; a registration carries a (possibly long) signature. */
export const merchantBodyLimits = { challenge: 4 * 1024, register: 16 * 1024, credential: 1024 } as const;

/**
 * The merchant routes: `POST /merchant/challenge` and `POST /merchant/register` (public,
 * rate-limited), `GET /merchant/me`, `POST /merchant/rotate-key`, `POST /merchant/revoke-key` and
 * `POST /payto/:payTo/revoke` (bearer).
 *
 * @param deps - Services, bearer auth and rate limits.
 * @returns The routes.
 * @example
 * ```ts
 * import { merchantRoutes } from '@tollgate/core/gateway';
 * const routes = merchantRoutes({ registration, accounts, auth, rateLimiter, rateLimits });
 * ```
 */
export function merchantRoutes(deps: MerchantRouteDeps): Route[] {
  const { registration, accounts, auth } = deps;
  return [
    route({
      method: 'POST',
      path: '/merchant/challenge',
      middleware: [gatewayRateLimit(deps.rateLimiter, 'challenge', deps.rateLimits.challenge)],
      body: { type: 'json', maxBytes: merchantBodyLimits.challenge },
      handler: async (request) => ({
        status: 200,
        headers: noStore,
        body: await registration.createChallenge(parseGatewayInput(challengeRequestSchema, request.body)),
      }),
    }),
    route({
      method: 'POST',
      path: '/merchant/register',
      middleware: [gatewayRateLimit(deps.rateLimiter, 'register', deps.rateLimits.register)],
      body: { type: 'json', maxBytes: merchantBodyLimits.register },
      handler: async (request) => {
        const caller = await auth.optionalMerchantOf(request);
        const result = await registration.register(parseGatewayInput(registerRequestSchema, request.body), caller);
        if (result.kind === 'attached') {
          return { status: 200, headers: noStore, body: { merchantId: result.merchantId, payTo: result.payTo, network: result.network, attached: true } };
        }
        const { kind, ...issued } = result;
        return { status: kind === 'created' ? 201 : 200, headers: noStore, body: { ...issued, recovered: kind === 'recovered' } };
      },
    }),
    route({
      method: 'GET',
      path: '/merchant/me',
      middleware: [auth.required],
      handler: async (request) => ({ status: 200, headers: noStore, body: await accounts.profile(await auth.merchantOf(request)) }),
    }),
    route({
      method: 'POST',
      path: '/merchant/rotate-key',
      middleware: [auth.required],
      body: { type: 'json', maxBytes: merchantBodyLimits.credential },
      handler: async (request) => {
        const { credential } = parseGatewayInput(credentialRequestSchema, request.body);
        return { status: 200, headers: noStore, body: await accounts.rotateKey(await auth.merchantOf(request), credential) };
      },
    }),
    route({
      method: 'POST',
      path: '/merchant/revoke-key',
      middleware: [auth.required],
      body: { type: 'json', maxBytes: merchantBodyLimits.credential },
      handler: async (request) => {
        const { credential } = parseGatewayInput(credentialRequestSchema, request.body);
        return { status: 200, headers: noStore, body: await accounts.revokeKey(await auth.merchantOf(request), credential) };
      },
    }),
    route({
      method: 'POST',
      path: '/payto/:payTo/revoke',
      middleware: [auth.required],
      handler: async (request) => ({
        status: 200,
        headers: noStore,
        body: await accounts.retirePayTo(await auth.merchantOf(request), request.params.payTo),
      }),
    }),
  ];
}
