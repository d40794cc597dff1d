import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tollgate/core';
import { parseEpochsConfig } from '../../src/config/epochs-config';

describe('parseEpochsConfig', () => {
  it('defaults to a one-hour approval window and the single-vendor rule', () => {
    expect(parseEpochsConfig({})).toEqual({ revokeApprovalSeconds: 3600, globalEpochVendors: undefined });
  });

  it('reads the window and the vendors administering global epochs', () => {
    const vendors = ['a'.repeat(32), 'b'.repeat(32)];
    expect(parseEpochsConfig({ LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: '60', LICENSE_EPOCH_ADMIN_VENDORS: vendors.join(',') })).toEqual({
      revokeApprovalSeconds: 60,
      globalEpochVendors: vendors,
    });
  });

  it('refuses windows out of range and malformed vendor lists', () => {
    for (const env of [{ LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: '59' }, { LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: '604801' }, { LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: 'soon' }, { LICENSE_EPOCH_ADMIN_VENDORS: 'acme' }, { LICENSE_EPOCH_ADMIN_VENDORS: `${'a'.repeat(32)},` }]) {
      expect(() => parseEpochsConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});
