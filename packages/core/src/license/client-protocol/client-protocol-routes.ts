import { LicenseClientError } from '../../errors/license-client';
import { route } from '../../http/routes';
import type { BodySpec, HttpResponse, Route } from '../../http/types';
import { activateDevice, type ClientAnswer } from './activation';
import { clientProtocolContext, type ClientProtocolContext, type ClientProtocolDeps } from './client-protocol-deps';
import { reportSuspicion, suspicionOfRefusal } from './suspicion-notices';
import { decodeClientRequest, readClientIdempotencyKey } from './client-request';
import { deactivateMachine, heartbeatMachine } from './session-services';
import { validateMachine } from './validation';

/** Every client-protocol body: canonical CBOR, 16 KiB decoded, gzip or br up to 64 KiB on the wire. */
export const clientProtocolBody = { type: 'cbor', maxBytes: 16 * 1024, maxCompressedBytes: 64 * 1024 } as const satisfies BodySpec;

const cbor = (body: Uint8Array, status = 200): HttpResponse => ({ status, headers: { 'content-type': 'application/cbor' }, body });

/** Reports the refusals tagged as suspicious (forged proofs, replayed nonces, licenses out of seats) once decided. */
function watchedRoutes(context: ClientProtocolContext, routes: Route[]): Route[] {
  return routes.map((entry) => ({
    ...entry,
    handler: async (request) => {
      try {
        return await entry.handler(request);
      } catch (error) {
        const signal = suspicionOfRefusal(error);
        if (signal !== undefined) reportSuspicion(context, signal);
        throw error;
      }
    },
  }));
}

function answer(result: ClientAnswer): HttpResponse {
  if (result.kind === 'conflict') throw new LicenseClientError(1000, 'This Idempotency-Key was used with another request; use a fresh key for a new request.', { status: 409 });
  return cbor(result.body, result.status);
}

/** An activation route: online (`/v1/activate`) and offline (`/v1/offline/request`) differ only in their request kind. */
function activationRoute(
  context: ReturnType<typeof clientProtocolContext>,
  path: string,
  kind: 'activation-request' | 'offline-request',
  routeName: 'activate' | 'offline',
): Route {
  return route({
    method: 'POST',
    path,
    body: clientProtocolBody,
    handler: async (request) => {
      const idempotencyKey = readClientIdempotencyKey(request.headers);
      const clientRequest = decodeClientRequest(kind, request.body);
      return answer(await activateDevice(context, { route: routeName, clientRequest, idempotencyKey, remoteAddress: request.remoteAddress }));
    },
  });
}

/**
 * The device routes of the license client protocol (docs/protocol.md §14): `POST /v1/activate`,
 * `/v1/validate`, `/v1/heartbeat`, `/v1/deactivate` and `/v1/offline/request`. CBOR in and out; errors
 * are `LicenseClientError`s for the table's renderer (`renderLicenseClientError`), whose middleware
 * supplies CORS, the `X-LS-Proto: 1` check and `no-store`. The three idempotent routes require an
 * `Idempotency-Key` (checked before the body is decoded).
 *
 * @param deps - Database, clock, master key, audit log, signing epochs, and the optional release gate,
 *   account token verifier and rate limiter.
 * @returns The routes.
 * @example
 * ```ts
 * import { clientProtocolRoutes, createSqlAuditLog } from '@tollgate/core/license';
 * const routes = clientProtocolRoutes({ sql, clock, masterKey, audit: createSqlAuditLog(sql), signingEpochs: () => trust.signingEpochs() });
 * ```
 */
export function clientProtocolRoutes(deps: ClientProtocolDeps): Route[] {
  const context = clientProtocolContext(deps);
  return watchedRoutes(context, [
    activationRoute(context, '/v1/activate', 'activation-request', 'activate'),
    activationRoute(context, '/v1/offline/request', 'offline-request', 'offline'),
    route({
      method: 'POST',
      path: '/v1/validate',
      body: clientProtocolBody,
      handler: async (request) => cbor(await validateMachine(context, { body: request.body, remoteAddress: request.remoteAddress })),
    }),
    route({
      method: 'POST',
      path: '/v1/heartbeat',
      body: clientProtocolBody,
      handler: async (request) => cbor(await heartbeatMachine(context, decodeClientRequest('heartbeat-request', request.body), request.remoteAddress)),
    }),
    route({
      method: 'POST',
      path: '/v1/deactivate',
      body: clientProtocolBody,
      handler: async (request) => {
        const idempotencyKey = readClientIdempotencyKey(request.headers);
        return answer(await deactivateMachine(context, { clientRequest: decodeClientRequest('deactivate-request', request.body), idempotencyKey, remoteAddress: request.remoteAddress }));
      },
    }),
  ]);
}
