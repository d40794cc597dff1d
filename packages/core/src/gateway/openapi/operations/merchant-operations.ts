import * as v from 'valibot';
import { challengeRequestSchema, credentialRequestSchema, registerRequestSchema } from '../../merchants/schemas';
import { merchantBodyLimits } from '../../routes/merchant-routes';
import { evmAddressSchema } from '../../../fields/schema-fields';
import { named, type OperationGroup } from '../../../openapi/descriptors';
import {
  challengeResponse,
  merchantCredentialsResponse,
  merchantProfileResponse,
  registrationResultResponse,
  retiredPayToResponse,
  revokedCredentialResponse,
  rotatedCredentialResponse,
} from '../schemas/merchant-responses';

const noStore = { 'Cache-Control': { description: 'no-store: the answer describes an account or carries a secret.', required: true, schema: v.literal('no-store') } };

/**
 * The operations of `merchantRoutes` (`routes/merchant-routes.ts`): registration by a signed challenge,
 * the profile, key rotation and payTo retirement.
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, merchantOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([merchantOperations]);
 * ```
 */
export const merchantOperations: OperationGroup = {
  name: 'merchant',
  description: 'Merchant registration (proof of control of a payTo address by a signed challenge), profile and credentials.',
  operations: [
    {
      method: 'POST',
      path: '/merchant/challenge',
      operationId: 'createRegistrationChallenge',
      summary: 'Issue a registration challenge for a payTo address',
      description: 'The challenge is short-lived; sign its signingMessage with the payTo wallet (EIP-191 personal_sign, or ERC-1271 for a contract wallet).',
      security: 'public',
      rateLimited: true,
      body: { schema: named('ChallengeRequest', challengeRequestSchema), maxBytes: merchantBodyLimits.challenge },
      responses: { 200: { description: 'The challenge to sign.', body: challengeResponse, headers: noStore } },
      errors: ['invalid_request'],
    },
    {
      method: 'POST',
      path: '/merchant/register',
      operationId: 'registerMerchant',
      summary: 'Register a payTo address with its signed challenge',
      description:
        'A new payTo creates a merchant (201) and returns its API key and notification key once. The owner of an already registered payTo who proves control again gets new credentials (200, recovered: true). With a merchant API key, the payTo joins that merchant instead (200, attached: true).',
      security: 'optional-bearer',
      rateLimited: true,
      body: { schema: named('RegisterRequest', registerRequestSchema), maxBytes: merchantBodyLimits.register },
      responses: {
        201: { description: 'A new merchant and its credentials (shown once).', body: merchantCredentialsResponse, headers: noStore },
        200: { description: 'Credentials recovered, or the payTo attached to the calling merchant.', body: registrationResultResponse, headers: noStore },
      },
      errors: ['invalid_request', 'unauthorized', 'conflict', 'payto_revoked', 'rpc_unavailable'],
    },
    {
      method: 'GET',
      path: '/merchant/me',
      operationId: 'getMerchantProfile',
      summary: 'The authenticated merchant profile',
      security: 'bearer',
      responses: { 200: { description: 'The profile: payTo addresses and live credentials (ids only, never secrets).', body: merchantProfileResponse, headers: noStore } },
      errors: [],
    },
    {
      method: 'POST',
      path: '/merchant/rotate-key',
      operationId: 'rotateMerchantKey',
      summary: 'Issue a new API key or notification key',
      description: 'The current credential keeps working as previous until POST /merchant/revoke-key.',
      security: 'bearer',
      body: { schema: named('CredentialRequest', credentialRequestSchema), maxBytes: merchantBodyLimits.credential },
      responses: { 200: { description: 'The new credential (shown once).', body: rotatedCredentialResponse, headers: noStore } },
      errors: ['conflict'],
    },
    {
      method: 'POST',
      path: '/merchant/revoke-key',
      operationId: 'revokeMerchantKey',
      summary: 'Revoke the previous API key or notification key',
      description: 'Idempotent: nothing to revoke is not an error.',
      security: 'bearer',
      body: { schema: named('CredentialRequest', credentialRequestSchema), maxBytes: merchantBodyLimits.credential },
      responses: { 200: { description: 'What was revoked.', body: revokedCredentialResponse, headers: noStore } },
      errors: [],
    },
    {
      method: 'POST',
      path: '/payto/:payTo/revoke',
      operationId: 'retirePayTo',
      summary: 'Retire a payTo address for future refs and payments',
      description: 'Idempotent. It never reverses a transfer already mined; a retired payTo can never be registered again.',
      security: 'bearer',
      pathParams: { payTo: { description: 'One of the merchant payTo addresses.', schema: evmAddressSchema } },
      responses: { 200: { description: 'The retired payTo.', body: retiredPayToResponse, headers: noStore } },
      errors: ['not_found'],
    },
  ],
};
