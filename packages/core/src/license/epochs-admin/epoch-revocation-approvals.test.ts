import { describe, expect, it } from 'vitest';
import { decideEpochRevocationConfirmation, type PendingEpochApproval } from './epoch-revocation-approvals';

const at = (seconds: number) => new Date(1_800_000_000_000 + seconds * 1000);
const approval = (overrides: Partial<PendingEpochApproval> = {}): PendingEpochApproval => ({
  approvalId: 'a'.repeat(32),
  vendorId: 'vendor-a',
  requestedBy: '1'.repeat(32),
  requestedAt: at(0),
  expiresAt: at(3600),
  requesterActive: true,
  ...overrides,
});

describe('decideEpochRevocationConfirmation', () => {
  it('opens an approval when none is pending', () => {
    expect(decideEpochRevocationConfirmation(undefined, { tokenId: '1'.repeat(32), vendorId: 'vendor-a' }, at(10))).toEqual({ kind: 'open', stale: undefined });
  });

  it('refuses the requesting actor inside the window and executes for another one', () => {
    expect(decideEpochRevocationConfirmation(approval(), { tokenId: '1'.repeat(32), vendorId: 'vendor-a' }, at(10)).kind).toBe('same_actor');
    expect(decideEpochRevocationConfirmation(approval(), { tokenId: '2'.repeat(32), vendorId: 'vendor-a' }, at(3599))).toEqual({ kind: 'execute', approval: approval() });
  });

  it('treats the window as half-open: at its end the approval has expired, for every actor', () => {
    for (const actor of ['1'.repeat(32), '2'.repeat(32)]) {
      expect(decideEpochRevocationConfirmation(approval(), { tokenId: actor, vendorId: 'vendor-a' }, at(3600))).toEqual({ kind: 'open', stale: approval() });
      expect(decideEpochRevocationConfirmation(approval(), { tokenId: actor, vendorId: 'vendor-a' }, at(90_000)).kind).toBe('open');
    }
  });

  it('voids an approval whose requesting token was revoked or expired since', () => {
    const orphan = approval({ requesterActive: false });
    expect(decideEpochRevocationConfirmation(orphan, { tokenId: '2'.repeat(32), vendorId: 'vendor-a' }, at(10))).toEqual({ kind: 'open', stale: orphan });
  });

  it('refuses a token of another vendor on a live approval, whoever it is, and lets it open one once the approval lapsed', () => {
    for (const tokenId of ['1'.repeat(32), '2'.repeat(32)]) {
      expect(decideEpochRevocationConfirmation(approval(), { tokenId, vendorId: 'vendor-b' }, at(10))).toEqual({ kind: 'other_vendor', approval: approval() });
      expect(decideEpochRevocationConfirmation(approval(), { tokenId, vendorId: 'vendor-b' }, at(3600))).toEqual({ kind: 'open', stale: approval() });
    }
    const orphan = approval({ requesterActive: false });
    expect(decideEpochRevocationConfirmation(orphan, { tokenId: '2'.repeat(32), vendorId: 'vendor-b' }, at(10))).toEqual({ kind: 'open', stale: orphan });
  });
});
