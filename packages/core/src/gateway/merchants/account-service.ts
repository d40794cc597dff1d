import { getAddress, isAddress } from 'viem';
import { randomBytes } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import type { GatewayEvents } from '../gateway-events';
import { epochSeconds, type GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { CredentialKind, CredentialRecord } from '../store/records';
import { apiKeyPattern, deriveNotifyHmacKey, generateApiKey, hashApiKey, newCredentialId } from './credentials';

/** The merchant behind a valid API key. */
export interface AuthenticatedMerchant {
  readonly merchantId: string;
  /** Id of the API key that was presented. */
  readonly credentialId: string;
  /** `previous` while a rotated-out key is still allowed (until `revoke-key`). */
  readonly credentialStatus: 'current' | 'previous';
}

/** A live credential as the profile shows it (never the secret). */
export interface ProfileKey {
  readonly keyId: string;
  readonly status: 'current' | 'previous';
  readonly createdAt: number;
}

/** `GET /merchant/me`: the merchant's profile. Times are unix seconds. */
export interface MerchantProfile {
  readonly merchantId: string;
  readonly label: string;
  readonly webhookUrl: string | null;
  readonly createdAt: number;
  readonly payTos: readonly {
    readonly payTo: string;
    readonly status: 'active' | 'retired';
    /** The network control was proven on. */
    readonly network: string;
    readonly proof: 'eoa' | 'erc1271';
    readonly registeredAt: number;
    readonly retiredAt: number | null;
  }[];
  readonly apiKeys: readonly ProfileKey[];
  readonly notifyHmacKeys: readonly ProfileKey[];
}

/** A new credential from `rotateKey`, shown once. */
export type RotatedCredential =
  | { readonly credential: 'api'; readonly apiKey: string; readonly apiKeyId: string; readonly previousKeyId: string }
  | { readonly credential: 'notify'; readonly notifyHmacKey: string; readonly notifyHmacKeyId: string; readonly previousKeyId: string };

/** What `revokeKey` revoked (`null` when there was no previous credential). */
export interface RevokedCredential {
  readonly credential: CredentialKind;
  readonly revokedKeyId: string | null;
}

/** A retired payTo. */
export interface RetiredPayTo {
  readonly payTo: string;
  readonly status: 'retired';
  readonly retiredAt: number;
}

/** Dependencies of {@link createMerchantAccountService}. */
export interface MerchantAccountServiceDeps extends GatewayServiceDeps {
  /** API keys, merchants, credentials and payTos. */
  readonly stores: Pick<GatewayStores, 'merchants'>;
  /** Told `payto_retired` after each successful retirement (`createGateway` passes its channel). */
  readonly events?: Pick<GatewayEvents, 'emit'>;
}

/** Authentication, profile, key rotation and payTo retirement of registered merchants. */
export interface MerchantAccountService {
  /**
   * Finds the merchant of an API key by its keyed hash.
   *
   * @throws GatewayError `unauthorized` for a malformed, unknown or revoked key.
   */
  authenticate(apiKey: string): Promise<AuthenticatedMerchant>;
  profile(caller: AuthenticatedMerchant): Promise<MerchantProfile>;
  /**
   * Issues a new credential and keeps the current one working as `previous` until `revokeKey`.
   *
   * @throws GatewayError `conflict` while a previous credential of that kind is still live.
   */
  rotateKey(caller: AuthenticatedMerchant, credential: CredentialKind): Promise<RotatedCredential>;
  /** Revokes the previous credential of that kind; idempotent (nothing to revoke is not an error). */
  revokeKey(caller: AuthenticatedMerchant, credential: CredentialKind): Promise<RevokedCredential>;
  /**
   * Retires one of the caller's payTos for future refs and payments; idempotent. Emits `payto_retired`
   * once the store has retired it.
   *
   * @throws GatewayError `invalid_request` for a malformed address, `not_found` when the caller does not own it.
   */
  retirePayTo(caller: AuthenticatedMerchant, payTo: string): Promise<RetiredPayTo>;
}

function unauthorized(message: string): GatewayError {
  return new GatewayError('unauthorized', message, { details: { scheme: 'Bearer' } });
}

function keysOf(credentials: readonly CredentialRecord[], kind: CredentialKind): ProfileKey[] {
  return credentials
    .filter((credential) => credential.kind === kind && credential.status !== 'revoked')
    .map((credential) => ({ keyId: credential.id, status: credential.status as ProfileKey['status'], createdAt: epochSeconds(credential.createdAt) }));
}

/**
 * The account half of the merchant API, behind bearer authentication.
 *
 * @param deps - Merchant store, keys, clock, randomness and the event channel.
 * @returns The service.
 * @example
 * ```ts
 * import { createGatewayEvents } from '@tollgate/core';
 * import { createMerchantAccountService } from '@tollgate/core/gateway';
 * const accounts = createMerchantAccountService({ stores: { merchants }, events: createGatewayEvents(), keys, networks, publicUrl, clock });
 * const caller = await accounts.authenticate(apiKey);
 * const profile = await accounts.profile(caller);
 * ```
 */
export function createMerchantAccountService(deps: MerchantAccountServiceDeps): MerchantAccountService {
  const random = deps.random ?? randomBytes;
  const { merchants } = deps.stores;
  return {
    async authenticate(apiKey) {
      // Malformed keys never reach the database (and cannot be used to probe it).
      if (!apiKeyPattern.test(apiKey)) throw unauthorized('The API key is malformed.');
      const match = await merchants.findApiKey(hashApiKey(deps.keys.apiKeyHash, apiKey));
      if (match === undefined) throw unauthorized('The API key is unknown or revoked.');
      return { merchantId: match.merchantId, credentialId: match.credentialId, credentialStatus: match.status };
    },

    async profile(caller) {
      const merchant = await merchants.getMerchant(caller.merchantId);
      if (merchant === undefined) throw unauthorized('The merchant of this API key no longer exists.');
      return {
        merchantId: merchant.id,
        label: merchant.label,
        webhookUrl: merchant.webhookUrl,
        createdAt: epochSeconds(merchant.createdAt),
        payTos: merchant.payTos.map((payTo) => ({
          payTo: payTo.address,
          status: payTo.status,
          network: payTo.proofNetwork,
          proof: payTo.proof,
          registeredAt: epochSeconds(payTo.registeredAt),
          retiredAt: payTo.retiredAt === null ? null : epochSeconds(payTo.retiredAt),
        })),
        apiKeys: keysOf(merchant.credentials, 'api'),
        notifyHmacKeys: keysOf(merchant.credentials, 'notify'),
      };
    },

    async rotateKey(caller, credential) {
      const now = new Date(deps.clock.now());
      const keyId = newCredentialId(random);
      const apiKey = credential === 'api' ? generateApiKey(random) : undefined;
      const outcome = await merchants.rotateCredential({
        merchantId: caller.merchantId,
        kind: credential,
        credential: apiKey === undefined ? { id: keyId } : { id: keyId, secretHash: hashApiKey(deps.keys.apiKeyHash, apiKey) },
        now,
      });
      if (outcome.kind === 'merchant_not_found') throw unauthorized('The merchant of this API key no longer exists.');
      if (outcome.kind === 'previous_exists') {
        throw new GatewayError('conflict', `A previous ${credential} credential is still live: revoke it with POST /merchant/revoke-key first.`, {
          details: { credential, previousKeyId: outcome.previousId },
        });
      }
      if (apiKey !== undefined) return { credential: 'api', apiKey, apiKeyId: keyId, previousKeyId: outcome.previousId };
      return {
        credential: 'notify',
        notifyHmacKey: deriveNotifyHmacKey(deps.keys.notifyRoot, caller.merchantId, keyId),
        notifyHmacKeyId: keyId,
        previousKeyId: outcome.previousId,
      };
    },

    async revokeKey(caller, credential) {
      const { revokedId } = await merchants.revokePreviousCredential({ merchantId: caller.merchantId, kind: credential, now: new Date(deps.clock.now()) });
      return { credential, revokedKeyId: revokedId };
    },

    async retirePayTo(caller, payTo) {
      if (!isAddress(payTo)) {
        throw new GatewayError('invalid_request', 'payTo is not an EVM address.', { details: { field: 'payTo' } });
      }
      const address = getAddress(payTo);
      const retired = await merchants.retirePayTo({ merchantId: caller.merchantId, address, now: new Date(deps.clock.now()) });
      if (retired === undefined || retired.retiredAt === null) {
        throw new GatewayError('not_found', 'No payTo with this address is registered to this merchant.', { details: { payTo: address } });
      }
      deps.events?.emit({ type: 'payto_retired', address: retired.address });
      return { payTo: retired.address, status: 'retired', retiredAt: epochSeconds(retired.retiredAt) };
    },
  };
}
