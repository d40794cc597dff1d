import * as v from 'valibot';
import { constantTimeEqual } from '../../crypto';
import { hexDecode, hexEncode } from '../../crypto/hex';
import { AdminError } from '../../errors/admin';
import { unixSeconds } from '../../time/clock';
import { adminOperation, type AdminOperation } from '../admin/admin-operation';
import { parseAdminInput } from '../admin/admin-input';
import { isArtifactError } from '../artifact-error';
import { rootKeyIdHex, verifyEpochCertificate, type VerifiedEpoch } from '../epoch-certificate';
import { activateEpochCertificate } from '../storage/epoch-store';
import { TrustChainError } from '../trust-chain-error';
import { addCarryOverCertificate, listEpochCertificates } from './carry-over-certificates';
import { announceEpochChangeAfterCommit, requireAdministeredEpoch } from './epoch-admin-calls';
import { administersGlobalEpochs, listAdministeredEpochs, readAdministeredEpoch, replacementCandidates } from './epoch-admin-store';
import { readLatestEpochApproval } from './epoch-revocation-approvals';
import { epochRevokeOperation } from './epoch-revoke-operation';
import { epochView, verifiesUnderPins, type EpochAdminDeps } from './epoch-views';

const hexText = (min: number, max: number, what: string) =>
  v.pipe(v.string(), v.regex(/^(?:[0-9a-f]{2})+$/, `${what} is lower-case hex`), v.minLength(min, `${what} is too short`), v.maxLength(max, `${what} is too long`));

const uploadSchema = v.strictObject({
  certificate_hex: hexText(2, 2 * 64 * 1024, 'certificate_hex'),
  root_verifying_key_hex: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'root_verifying_key_hex is a 32-byte public key in lower-case hex')),
});

/** Maps the trust chain's refusals of a certificate to Admin errors (400 with the reason, 404, 409). */
function certificateRefusal(error: unknown): unknown {
  if (isArtifactError(error)) return new AdminError('invalid_request', `The certificate does not verify (${error.reason}): ${error.message}`, { cause: error });
  if (!(error instanceof TrustChainError)) return error;
  if (error.code === 'unknown_epoch') return new AdminError('not_found', error.message, { cause: error });
  if (error.code === 'epoch_revoked') return new AdminError('already_revoked', error.message, { cause: error });
  return new AdminError('invalid_request', error.message, { cause: error });
}

/** Verifies the uploaded certificate against the named root, which must be one of the server's pins. */
function verifyUpload(deps: EpochAdminDeps, body: unknown): { certificate: Uint8Array; root: Uint8Array; epoch: VerifiedEpoch } {
  const input = parseAdminInput(uploadSchema, body);
  const root = hexDecode(input.root_verifying_key_hex);
  if (!deps.pinnedRoots.some((pin) => constantTimeEqual(pin, root))) {
    throw new AdminError('invalid_request', `Root ${rootKeyIdHex(root)} is not pinned by this server (LICENSE_ROOT_PUBLIC_KEYS): certificates must verify against a pinned root.`);
  }
  const certificate = hexDecode(input.certificate_hex);
  try {
    return { certificate, root, epoch: verifyEpochCertificate(certificate, { pinnedRoots: [root], ...(deps.verify === undefined ? {} : { verify: deps.verify }) }) };
  } catch (error) {
    throw certificateRefusal(error);
  }
}

/**
 * The Admin operations of signing epochs (scope `epochs:rw`):
 *
 * - `GET /epochs`: the epochs the caller's vendor administers (its products' epochs, and the global ones
 *   where it administers those), with whether the keyset lists each and which roots certified it;
 * - `POST /epochs` (`certificate_hex`, `root_verifying_key_hex`): loads a root-signed certificate. The
 *   root must be pinned and must have signed it. For a pending epoch it is the primary certificate (the
 *   epoch becomes active); for a certified epoch, a certificate of **another** pinned root is stored as a
 *   carry-over (root rotation: the keyset keeps listing the epoch under the new root once the old one
 *   is unpinned). Loading the same certificate again changes nothing. The keyset is republished after
 *   the commit (`afterTrustChange`), and every instance hears of it through the database's notices;
 * - `GET /epochs/:epochId`: the epoch, its certificates, replacement readiness (active epochs of the same
 *   reach listed in the keyset and valid now) and the latest revocation approval;
 * - `POST /epochs/:epochId/revoke`: see {@link epochRevokeOperation}.
 *
 * @param deps - Database, pins, signing epochs, approval window, vendors of global epochs, the post-commit hook.
 * @returns The operations.
 *
 * @example
 * ```ts
 * import { epochOperations } from '@tollgate/core/license';
 * const operations = epochOperations({ sql, pinnedRoots, signingEpochs: () => trust.signingEpochs(), approvalWindowSeconds: 3600, globalEpochVendors: undefined });
 * ```
 */
export function epochOperations(deps: EpochAdminDeps): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/epochs',
      docs: { summary: 'Lists the signing epochs of the vendor and the global ones.' },
      scopes: ['epochs:rw'],
      kind: 'read',
      run: async (call) => {
        const globalToo = await administersGlobalEpochs(call.sql, deps, call.actor.vendorId);
        const epochs = await listAdministeredEpochs(call.sql, call.actor.vendorId, globalToo);
        const certificates = await listEpochCertificates(call.sql);
        const now = Math.floor(call.now.getTime() / 1000);
        return { body: { epochs: epochs.map((epoch) => epochView(epoch, { certificates: certificates.get(epoch.epochIdHex), deps, now })), administers_global_epochs: globalToo } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/epochs',
      docs: { summary: 'Uploads the root-signed certificate of an epoch created on this server.', body: uploadSchema, errors: ['already_revoked'] },
      scopes: ['epochs:rw'],
      kind: 'mutation',
      run: async (call) => {
        const upload = verifyUpload(deps, call.body);
        const globalToo = await administersGlobalEpochs(call.sql, deps, call.actor.vendorId);
        const epoch = await readAdministeredEpoch(call.sql, call.actor.vendorId, upload.epoch.epochIdHex, { globalToo, lock: true });
        if (epoch === undefined) throw new AdminError('not_found', `No epoch ${upload.epoch.epochIdHex} of yours was created on this server (tollgate-license epoch create).`);
        const clock = { now: () => call.now.getTime() };
        const sameRootAsPrimary = epoch.certificate !== undefined && verifiesUnderPins([{ certificate: epoch.certificate, rootKeyIdHex: undefined, carriedOver: false }], { pinnedRoots: [upload.root] });
        let outcome: 'activated' | 'already_active' | 'carried_over' | 'already_carried_over';
        try {
          if (epoch.status === 'pending' || (epoch.status === 'active' && sameRootAsPrimary)) {
            await activateEpochCertificate(call.sql, { certificate: upload.certificate, pinnedRoots: [upload.root], clock, ...(deps.verify === undefined ? {} : { verify: deps.verify }) });
            outcome = epoch.status === 'pending' ? 'activated' : 'already_active';
          } else {
            const carried = await addCarryOverCertificate(call.sql, { certificate: upload.certificate, pinnedRoots: [upload.root], clock, ...(deps.verify === undefined ? {} : { verify: deps.verify }) });
            outcome = carried.added ? 'carried_over' : 'already_carried_over';
          }
        } catch (error) {
          throw certificateRefusal(error);
        }
        await call.audit({
          action: outcome === 'activated' || outcome === 'already_active' ? 'epoch.certificate_load' : 'epoch.certificate_carry_over',
          targetType: 'epoch',
          targetId: epoch.epochIdHex,
          summary: { outcome, root_key_id: rootKeyIdHex(upload.root), product_scope: epoch.productScope ?? null },
        });
        if (outcome === 'activated') announceEpochChangeAfterCommit(deps, epoch.epochId, `epoch:${epoch.epochIdHex}:active`, (status) => status === 'active');
        if (outcome === 'carried_over') announceEpochChangeAfterCommit(deps, epoch.epochId, `epoch:${epoch.epochIdHex}:carried-over`, (_status, carried) => carried);
        const stored = (await readAdministeredEpoch(call.sql, call.actor.vendorId, epoch.epochIdHex, { globalToo })) ?? epoch;
        const certificates = await listEpochCertificates(call.sql);
        return { body: { outcome, epoch: epochView(stored, { certificates: certificates.get(epoch.epochIdHex), deps, now: unixSeconds(clock) }) } };
      },
    }),
    adminOperation({
      method: 'GET',
      path: '/epochs/:epochId',
      docs: { summary: 'Reads one signing epoch.' },
      scopes: ['epochs:rw'],
      kind: 'read',
      run: async (call) => {
        const epoch = await requireAdministeredEpoch(call, deps);
        const now = Math.floor(call.now.getTime() / 1000);
        const certificates = await listEpochCertificates(call.sql);
        const replacements = (await replacementCandidates(call.sql, epoch, now)).filter((id) => verifiesUnderPins(certificates.get(id), deps));
        const approval = await readLatestEpochApproval(call.sql, epoch.epochId);
        return {
          body: {
            epoch: {
              ...epochView(epoch, { certificates: certificates.get(epoch.epochIdHex), deps, now }),
              certificates_hex: (certificates.get(epoch.epochIdHex) ?? []).map((entry) => hexEncode(entry.certificate)),
            },
            replacement: { ready: replacements.length > 0, epoch_ids: replacements },
            revocation_approval:
              approval === undefined
                ? null
                : {
                    approval_id: approval.approvalId,
                    status: approval.status === 'pending' && approval.expiresAt.getTime() <= call.now.getTime() ? 'expired' : approval.status,
                    requested_by: approval.requestedBy,
                    requested_at: approval.requestedAt.toISOString(),
                    expires_at: approval.expiresAt.toISOString(),
                    approved_by: approval.approvedBy ?? null,
                    revocation_seq: approval.revocationSeq ?? null,
                  },
          },
        };
      },
    }),
    epochRevokeOperation(deps),
  ];
}
