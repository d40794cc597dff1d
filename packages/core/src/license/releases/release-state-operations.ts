import { AdminError } from '../../errors/admin';
import { parseAdminInput } from '../admin/admin-input';
import { adminOperation, adminRevokeBodyLimit, type AdminOperation } from '../admin/admin-operation';
import { requireRelease, type ReleaseOperationsDeps } from './release-access';
import { announceReleaseChange } from './release-changes';
import type { CompromiseAction } from './release-gate';
import { compromiseActionRank, releaseView, type ReleaseRecord } from './release-record';
import { deprecateReleaseSchema, markCompromisedSchema } from './release-schemas';
import { createSqlReleaseStore } from './release-store';

/** Why a deprecation changes nothing (`code: message`, like policy warnings), or none when it would. */
function deprecateWarnings(release: ReleaseRecord): string[] {
  if (release.state === 'deprecated') return [`already_deprecated: release ${release.releaseId} is deprecated already; nothing changes`];
  if (release.state === 'compromised') return [`already_compromised: release ${release.releaseId} is compromised (action ${release.compromiseAction}), which outranks deprecated; nothing changes`];
  return [];
}

const compromiseActions: readonly CompromiseAction[] = ['warn', 'force_upgrade', 'revoke'];

/** Whether marking `release` compromised with `action` changes it: compromises only escalate. */
function compromiseChanges(release: ReleaseRecord, action: CompromiseAction): boolean {
  return release.compromiseAction === null || compromiseActionRank[release.compromiseAction] < compromiseActionRank[action];
}

function compromiseWarnings(release: ReleaseRecord, action: CompromiseAction, bump: boolean): string[] {
  if (compromiseChanges(release, action)) return [];
  const current = release.compromiseAction as CompromiseAction;
  const warnings =
    current === action
      ? [`already_compromised: release ${release.releaseId} is compromised with action ${action} already; nothing changes`]
      : [`action_not_lowered: release ${release.releaseId} is compromised with action ${current}, which a compromise never lowers to ${action}; nothing changes`];
  if (bump) warnings.push('security_floor_not_raised: the security floor rises only when the compromise changes');
  return warnings;
}

/**
 * The release state routes (scope `releases:rw`, destructive: dry run unless `dry_run=false`, then
 * `Idempotency-Key`; bodies of at most 4 KiB like revoke routes). The target is checked before the body.
 *
 * - `POST /releases/:releaseId/deprecate` (no body, or `{}`): registered → deprecated. Dry run `{ dry_run:
 *   true, release, would_change, impacted_devices, warnings }`, where `impacted_devices` counts the active
 *   machines that last reported the release. Confirmed `{ dry_run: false, release, changed,
 *   impacted_devices, warnings }`; deprecating a deprecated or compromised release changes nothing and
 *   says why in `warnings` (still audited: the confirmation happened).
 * - `POST /releases/:releaseId/mark-compromised` `{ action: warn | force_upgrade | revoke,
 *   bump_security_floor?, acknowledge_revoke? }`: registered or deprecated → compromised; a compromised
 *   release's action may only be raised (warn → force_upgrade → revoke); an equal or lower one changes
 *   nothing (`warnings`). `revoke` kills every device running the release at its next validation, so
 *   confirming it needs `acknowledge_revoke: true` (else 400 `invalid_request`). `bump_security_floor`
 *   raises the product's floor by one when the compromise changes the release. Dry run `{ dry_run: true,
 *   release, action, would_change, changing_actions, impacted_devices, requires_acknowledgement,
 *   security_floor: { current, next }, warnings }` (`action`, or the whole body, may be left out of a dry
 *   run: `action` is then `null` and `changing_actions` lists the actions that would change the release;
 *   a confirmation without `action` is 400); confirmed `{ dry_run: false, release, changed,
 *   impacted_devices, security_floor: { previous, current }, warnings }`.
 *
 * Every confirmed change is announced to the release gates of this instance after commit
 * ({@link announceReleaseChange}).
 *
 * @param deps - The database (for change notices).
 * @returns The two operations.
 * @example
 * ```ts
 * import { releaseStateOperations, deriveReleaseVariantKey } from '@tollgate/core/license';
 * const operations = releaseStateOperations({ sql, variantKey: deriveReleaseVariantKey(masterKey) });
 * ```
 */
export function releaseStateOperations(deps: ReleaseOperationsDeps): AdminOperation[] {
  return [
    adminOperation({
      method: 'POST',
      path: '/releases/:releaseId/deprecate',
      docs: { summary: 'Deprecates a release (clients are told to upgrade).', body: deprecateReleaseSchema },
      scopes: ['releases:rw'],
      kind: 'destructive',
      maxBodyBytes: adminRevokeBodyLimit,
      run: async (call) => {
        const target = await requireRelease(call, call.params.releaseId, { forUpdate: !call.dryRun });
        parseAdminInput(deprecateReleaseSchema, call.body);
        const store = createSqlReleaseStore(call.sql);
        if (call.dryRun) {
          const warnings = deprecateWarnings(target);
          return { body: { dry_run: true, release: releaseView(target), would_change: warnings.length === 0, impacted_devices: await store.countActiveDevices(target.releaseId), warnings } };
        }
        const outcome = await store.deprecate(call.actor.vendorId, target.releaseId, call.now);
        if (outcome.kind === 'not_found') throw new AdminError('not_found', 'No such release.');
        const { release, changed } = outcome;
        if (changed) await announceReleaseChange(call.sql, deps.sql, release.productId);
        const impactedDevices = await store.countActiveDevices(release.releaseId);
        const warnings = changed ? [] : deprecateWarnings(release);
        await call.audit({
          action: 'release.deprecate',
          targetType: 'release',
          targetId: release.releaseId,
          summary: { product_id: release.productId, changed, state: release.state, impacted_devices: impactedDevices },
        });
        return { body: { dry_run: false, release: releaseView(release), changed, impacted_devices: impactedDevices, warnings } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/releases/:releaseId/mark-compromised',
      docs: { summary: 'Marks a release compromised, with the action clients take: warn, force_upgrade or revoke.', body: markCompromisedSchema },
      scopes: ['releases:rw'],
      kind: 'destructive',
      maxBodyBytes: adminRevokeBodyLimit,
      run: async (call) => {
        const target = await requireRelease(call, call.params.releaseId, { forUpdate: !call.dryRun });
        const input = parseAdminInput(markCompromisedSchema, call.body);
        const store = createSqlReleaseStore(call.sql);
        const floor = (await store.securityFloor(call.actor.vendorId, target.productId)) ?? 0;
        if (call.dryRun) {
          const changingActions = compromiseActions.filter((action) => compromiseChanges(target, action));
          const action = input.action ?? null;
          const wouldChange = action === null ? changingActions.length > 0 : changingActions.includes(action);
          return {
            body: {
              dry_run: true,
              release: releaseView(target),
              action,
              would_change: wouldChange,
              changing_actions: changingActions,
              impacted_devices: await store.countActiveDevices(target.releaseId),
              requires_acknowledgement: action === 'revoke',
              security_floor: { current: floor, next: action !== null && wouldChange && input.bump_security_floor ? floor + 1 : floor },
              warnings: action === null ? [] : compromiseWarnings(target, action, input.bump_security_floor),
            },
          };
        }
        const action = input.action;
        if (action === undefined) throw new AdminError('invalid_request', 'Invalid request. action: confirming needs an action: warn, force_upgrade or revoke.');
        if (action === 'revoke' && !input.acknowledge_revoke) {
          throw new AdminError(
            'invalid_request',
            `Marking release ${target.releaseId} compromised with action revoke sends a kill order to every device running it at its next validation: confirm with acknowledge_revoke: true (the dry run shows the devices impacted).`,
          );
        }
        const outcome = await store.markCompromised(call.actor.vendorId, target.releaseId, action, call.now);
        if (outcome.kind === 'not_found') throw new AdminError('not_found', 'No such release.');
        const { release, changed } = outcome;
        // Raised only by the call that changed the release: a retry or a twin under another key changes
        // nothing, so the floor cannot climb twice for one compromise.
        const raised = changed && input.bump_security_floor;
        const current = raised ? await store.bumpSecurityFloor(call.actor.vendorId, release.productId) : floor;
        if (current === undefined) throw new AdminError('not_found', 'No such product.');
        const previous = raised ? current - 1 : current;
        if (changed) await announceReleaseChange(call.sql, deps.sql, release.productId);
        const impactedDevices = await store.countActiveDevices(release.releaseId);
        await call.audit({
          action: 'release.mark_compromised',
          targetType: 'release',
          targetId: release.releaseId,
          summary: {
            product_id: release.productId,
            action,
            changed,
            from_state: target.state,
            compromise_action: release.compromiseAction,
            acknowledge_revoke: input.acknowledge_revoke,
            security_floor_from: previous,
            security_floor_to: current,
            impacted_devices: impactedDevices,
          },
        });
        const warnings = changed ? [] : compromiseWarnings(release, action, input.bump_security_floor);
        return { body: { dry_run: false, release: releaseView(release), changed, impacted_devices: impactedDevices, security_floor: { previous, current }, warnings } };
      },
    }),
  ];
}
