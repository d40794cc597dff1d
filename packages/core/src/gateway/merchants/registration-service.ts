import { randomBytes, randomId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import type { GatewayNetwork } from '../networks';
import { resolvePublicUrl, type GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { RegistrationOutcome } from '../store/merchant-store';
import type { ChallengeRecord } from '../store/records';
import type { AuthenticatedMerchant } from './account-service';
import {
  challengeLifetimeSeconds,
  challengeTime,
  merchantRegisterAction,
  renderSigningMessage,
  webhookUrlSha256,
  type ChallengeMessage,
} from './challenge-message';
import { deriveNotifyHmacKey, generateApiKey, hashApiKey, newCredentialId } from './credentials';
import type { ChallengeRequest, RegisterRequest } from './schemas';
import type { WalletSignatureVerifier } from './signature-verifier';

/** Dependencies of {@link createRegistrationService}. */
export interface RegistrationServiceDeps extends GatewayServiceDeps {
  /** Challenges, registrations and payTos. */
  readonly stores: Pick<GatewayStores, 'merchants'>;
  readonly signatureVerifier: WalletSignatureVerifier;
}

/** A challenge to sign: the canonical message and its text rendering. */
export interface IssuedChallenge {
  readonly challengeId: string;
  readonly message: ChallengeMessage;
  readonly signingMessage: string;
}

/** Credentials issued once at registration (new merchant or credential recovery). */
export interface IssuedCredentials {
  readonly kind: 'created' | 'recovered';
  readonly merchantId: string;
  readonly payTo: string;
  readonly network: string;
  readonly apiKey: string;
  readonly apiKeyId: string;
  readonly notifyHmacKey: string;
  readonly notifyHmacKeyId: string;
}

/** A payTo added to the authenticated merchant. */
export interface AttachedPayTo {
  readonly kind: 'attached';
  readonly merchantId: string;
  readonly payTo: string;
  readonly network: string;
}

/** Issues registration challenges and registers payTo addresses. */
export interface RegistrationService {
  /** Issues a challenge for `payTo` on `network` (see `renderSigningMessage` for what is signed). */
  createChallenge(input: ChallengeRequest): Promise<IssuedChallenge>;
  /**
   * Verifies the signed challenge and registers: a new payTo creates a merchant; a payTo already
   * registered recovers its merchant's credentials; with `caller`, the payTo is attached to the
   * caller's merchant instead.
   */
  register(input: RegisterRequest, caller?: AuthenticatedMerchant): Promise<IssuedCredentials | AttachedPayTo>;
}

function challengeRefused(reason: string, message: string, field = 'challengeId'): GatewayError {
  return new GatewayError('invalid_request', message, { details: { field, reason } });
}

function messageOf(challenge: ChallengeRecord, network: GatewayNetwork): ChallengeMessage {
  return {
    challengeId: challenge.id,
    origin: challenge.origin,
    action: challenge.action,
    payTo: challenge.payTo,
    network: challenge.network,
    chainId: network.caip2,
    webhookSha256: challenge.webhookSha256,
    nonce: challenge.nonce,
    issuedAt: challengeTime(challenge.issuedAt),
    expiresAt: challengeTime(challenge.expiresAt),
  };
}

// Everything the signature binds must match the request, or the signature proves something else.
function assertBinds(challenge: ChallengeRecord, input: RegisterRequest, origin: string, now: Date): void {
  if (challenge.consumedAt !== null) throw challengeRefused('challenge_used', 'This challenge was already used. Request a new one.');
  if (challenge.expiresAt.getTime() <= now.getTime()) throw challengeRefused('challenge_expired', 'This challenge expired. Request a new one.');
  if (challenge.origin !== origin) throw challengeRefused('origin_mismatch', 'This challenge was issued by another gateway origin.');
  if (challenge.action !== merchantRegisterAction) throw challengeRefused('action_mismatch', 'This challenge was issued for another action.');
  if (challenge.payTo !== input.payTo) throw challengeRefused('payto_mismatch', 'payTo differs from the challenge.', 'payTo');
  if (challenge.network !== input.network) throw challengeRefused('network_mismatch', 'network differs from the challenge.', 'network');
  if (challenge.webhookSha256 !== webhookUrlSha256(input.webhookUrl)) {
    throw challengeRefused('webhook_mismatch', 'webhookUrl differs from the one bound in the challenge.', 'webhookUrl');
  }
}

function refusalOf(outcome: Exclude<RegistrationOutcome, { kind: 'created' | 'recovered' | 'attached' | 'already_attached' }>): GatewayError {
  switch (outcome.kind) {
    case 'challenge_unavailable':
      if (outcome.reason === 'expired') return challengeRefused('challenge_expired', 'This challenge expired. Request a new one.');
      if (outcome.reason === 'unknown') return challengeRefused('challenge_unknown', 'No such challenge.');
      if (outcome.reason === 'mismatch') return challengeRefused('payto_mismatch', 'payTo or network differs from the challenge.');
      return challengeRefused('challenge_used', 'This challenge was already used. Request a new one.');
    case 'payto_retired':
      return new GatewayError('payto_revoked', 'This payTo was retired and can never be registered again.', { details: { field: 'payTo' } });
    case 'payto_taken':
      return new GatewayError('conflict', 'This payTo belongs to another merchant.', { details: { field: 'payTo' } });
  }
}

/**
 * The registration half of the merchant API: challenges (5-minute lifetime, single use) and
 * registration by signature (EIP-191; ERC-1271 through the verifier when the network has an RPC).
 *
 * @param deps - Merchant store, keys, networks, public URL, clock, randomness and the signature verifier.
 * @returns The service.
 * @example
 * ```ts
 * import { createRegistrationService } from '@tollgate/core/gateway';
 * const registration = createRegistrationService({ stores: { merchants }, keys, networks, publicUrl, clock, signatureVerifier });
 * const { signingMessage, challengeId } = await registration.createChallenge({ payTo, network: 'base', action: 'merchant.register' });
 * ```
 */
export function createRegistrationService(deps: RegistrationServiceDeps): RegistrationService {
  const random = deps.random ?? randomBytes;
  const { merchants } = deps.stores;
  return {
    async createChallenge(input) {
      const network = deps.networks.require(input.network);
      // Whole seconds: the signed text shows seconds, and the stored times must match it exactly.
      const issuedAt = new Date(Math.floor(deps.clock.now() / 1000) * 1000);
      const challenge: ChallengeRecord = {
        id: randomId(random),
        origin: resolvePublicUrl(deps),
        action: input.action,
        payTo: input.payTo,
        network: network.name,
        webhookSha256: webhookUrlSha256(input.webhookUrl),
        nonce: randomId(random),
        issuedAt,
        expiresAt: new Date(issuedAt.getTime() + challengeLifetimeSeconds * 1000),
        consumedAt: null,
      };
      await merchants.insertChallenge(challenge);
      const message = messageOf(challenge, network);
      return { challengeId: challenge.id, message, signingMessage: renderSigningMessage(message) };
    },

    async register(input, caller) {
      const network = deps.networks.require(input.network);
      const challenge = await merchants.getChallenge(input.challengeId);
      if (challenge === undefined) throw challengeRefused('challenge_unknown', 'No such challenge.');
      const now = new Date(deps.clock.now());
      assertBinds(challenge, input, resolvePublicUrl(deps), now);
      const signingMessage = renderSigningMessage(messageOf(challenge, network));
      const proof = await deps.signatureVerifier.verifyMessage({ network, address: challenge.payTo as `0x${string}`, message: signingMessage, signature: input.signature });
      if (proof === null) {
        throw new GatewayError('unauthorized', 'The signature does not prove control of payTo.', {
          details: {
            field: 'signature',
            hint: 'Sign signingMessage exactly with personal_sign (EIP-191) from payTo. Contract wallets need an RPC URL configured for the network.',
          },
        });
      }
      const base = { challengeId: challenge.id, now, payTo: challenge.payTo, network: network.name, proof };
      if (caller !== undefined) {
        const outcome = await merchants.register({ ...base, mode: { kind: 'attach', merchantId: caller.merchantId } });
        if (outcome.kind === 'attached' || outcome.kind === 'already_attached') {
          return { kind: 'attached', merchantId: outcome.merchantId, payTo: challenge.payTo, network: network.name };
        }
        if (outcome.kind === 'created' || outcome.kind === 'recovered') throw new Error('An attach registration enrolled a merchant.');
        throw refusalOf(outcome);
      }
      const apiKey = generateApiKey(random);
      const apiKeyId = newCredentialId(random);
      const notifyHmacKeyId = newCredentialId(random);
      const outcome = await merchants.register({
        ...base,
        mode: {
          kind: 'enroll',
          merchantId: randomId(random),
          label: input.label,
          webhookUrl: input.webhookUrl ?? null,
          apiKey: { id: apiKeyId, secretHash: hashApiKey(deps.keys.apiKeyHash, apiKey) },
          notifyKey: { id: notifyHmacKeyId },
        },
      });
      if (outcome.kind === 'created' || outcome.kind === 'recovered') {
        return {
          kind: outcome.kind,
          merchantId: outcome.merchantId,
          payTo: challenge.payTo,
          network: network.name,
          apiKey,
          apiKeyId,
          notifyHmacKey: deriveNotifyHmacKey(deps.keys.notifyRoot, outcome.merchantId, notifyHmacKeyId),
          notifyHmacKeyId,
        };
      }
      if (outcome.kind === 'attached' || outcome.kind === 'already_attached') throw new Error('An enroll registration attached a payTo.');
      throw refusalOf(outcome);
    },
  };
}
