import * as v from 'valibot';
import type { IssuedChallenge, IssuedCredentials, AttachedPayTo } from '../../merchants/registration-service';
import type { MerchantProfile, RetiredPayTo, RevokedCredential, RotatedCredential } from '../../merchants/account-service';
import { named } from '../../../openapi/descriptors';
import { addressOut, describes, unixSeconds } from './common';

/** Response schemas of the merchant routes (`merchant-routes.ts`), each tied to its service type. */

const hex32 = v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/));
const keyId = v.pipe(v.string(), v.minLength(1), v.description('Public id of a credential (never the secret).'));
const shownOnce = (what: string) => v.pipe(v.string(), v.minLength(1), v.description(`${what}: shown once, store it now.`));

/** `POST /merchant/challenge` → 200. */
export const challengeResponse = named(
  'RegistrationChallenge',
  describes<IssuedChallenge>()(
    v.object({
      challengeId: hex32,
      message: v.pipe(
        v.object({
          challengeId: hex32,
          origin: v.pipe(v.string(), v.description('Public URL of the gateway that issued the challenge.')),
          action: v.pipe(v.string(), v.value('merchant.register')),
          payTo: addressOut,
          network: v.string(),
          chainId: v.pipe(v.string(), v.description('CAIP-2 id of the network.')),
          webhookSha256: v.nullable(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
          nonce: hex32,
          issuedAt: v.pipe(v.string(), v.description('ISO 8601 UTC, whole seconds.')),
          expiresAt: v.pipe(v.string(), v.description('ISO 8601 UTC, whole seconds.')),
        }),
        v.description('The canonical challenge: every field the signature binds.'),
      ),
      signingMessage: v.pipe(v.string(), v.description('The text the wallet signs (EIP-191 personal_sign); send the signature to POST /merchant/register.')),
    }),
  ),
);

const credentialsEntries = {
  merchantId: v.string(),
  payTo: addressOut,
  network: v.string(),
  apiKey: shownOnce('The merchant API key (Authorization: Bearer)'),
  apiKeyId: keyId,
  notifyHmacKey: shownOnce('The key that signs notifications to the merchant'),
  notifyHmacKeyId: keyId,
};

/** `POST /merchant/register` → 201 (new merchant) and 200 (credentials recovered by the payTo's owner). */
export const merchantCredentialsResponse = named(
  'MerchantCredentials',
  describes<Omit<IssuedCredentials, 'kind'> & { recovered: boolean }>()(
    v.object({ ...credentialsEntries, recovered: v.pipe(v.boolean(), v.description('True when an already registered payTo proved control again: new credentials replace the old ones.')) }),
  ),
);

/** `POST /merchant/register` with a merchant API key → 200: the payTo joined the caller's merchant. */
export const attachedPayToResponse = named(
  'AttachedPayTo',
  describes<Omit<AttachedPayTo, 'kind'> & { attached: true }>()(v.object({ merchantId: v.string(), payTo: addressOut, network: v.string(), attached: v.literal(true) })),
);

/** `POST /merchant/register` → 200: recovered credentials or an attached payTo. */
export const registrationResultResponse = named(
  'RegistrationResult',
  v.union([merchantCredentialsResponse.schema, attachedPayToResponse.schema]),
);

const profileKey = v.object({ keyId, status: v.picklist(['current', 'previous']), createdAt: unixSeconds });

/** `GET /merchant/me` → 200. */
export const merchantProfileResponse = named(
  'MerchantProfile',
  describes<MerchantProfile>()(
    v.object({
      merchantId: v.string(),
      label: v.string(),
      webhookUrl: v.nullable(v.string()),
      createdAt: unixSeconds,
      payTos: v.array(
        v.object({
          payTo: addressOut,
          status: v.picklist(['active', 'retired']),
          network: v.pipe(v.string(), v.description('The network control was proven on.')),
          proof: v.picklist(['eoa', 'erc1271']),
          registeredAt: unixSeconds,
          retiredAt: v.nullable(unixSeconds),
        }),
      ),
      apiKeys: v.array(profileKey),
      notifyHmacKeys: v.array(profileKey),
    }),
  ),
);

/** `POST /merchant/rotate-key` → 200. */
export const rotatedCredentialResponse = named(
  'RotatedCredential',
  describes<RotatedCredential>()(
    v.union([
      v.object({ credential: v.literal('api'), apiKey: shownOnce('The new API key'), apiKeyId: keyId, previousKeyId: keyId }),
      v.object({ credential: v.literal('notify'), notifyHmacKey: shownOnce('The new notification key'), notifyHmacKeyId: keyId, previousKeyId: keyId }),
    ]),
  ),
);

/** `POST /merchant/revoke-key` → 200. */
export const revokedCredentialResponse = named(
  'RevokedCredential',
  describes<RevokedCredential>()(
    v.object({ credential: v.picklist(['api', 'notify']), revokedKeyId: v.pipe(v.nullable(keyId), v.description('null when there was no previous credential.')) }),
  ),
);

/** `POST /payto/:payTo/revoke` → 200. */
export const retiredPayToResponse = named(
  'RetiredPayTo',
  describes<RetiredPayTo>()(v.object({ payTo: addressOut, status: v.literal('retired'), retiredAt: unixSeconds })),
);
