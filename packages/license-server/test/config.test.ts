import { describe, expect, it } from 'vitest';
import { ConfigError, hexEncode } from '@tollgate/core';
import { base64Encode, base64UrlEncode } from '@tollgate/core/crypto';
import { licenseServiceOptions, loadLicenseConfig } from '@tollgate/license-server';

const key = Uint8Array.from({ length: 32 }, (_, index) => index * 7);
const root = hexEncode(Uint8Array.from({ length: 32 }, (_, index) => 255 - index));

describe('license trust configuration', () => {
  it('reads the master key as hex, base64 or base64url, and the pinned roots as a comma-separated list', () => {
    for (const text of [hexEncode(key), base64Encode(key), base64Encode(key).replace(/=+$/, ''), base64UrlEncode(key)]) {
      expect(loadLicenseConfig({ LICENSE_MASTER_KEY: text }).masterKey).toEqual(key);
    }
    const config = loadLicenseConfig({ LICENSE_ROOT_PUBLIC_KEYS: `${root},${hexEncode(key)}` });
    expect(config.rootPublicKeys.map(hexEncode)).toEqual([root, hexEncode(key)]);
    expect(config.production).toBe(false);
    expect(config.keysetRefreshSeconds).toBe(30);
  });

  it('names every wrong variable at once', () => {
    let error: unknown;
    try {
      loadLicenseConfig({ LICENSE_MASTER_KEY: 'abc', LICENSE_ROOT_PUBLIC_KEYS: 'ABCD', LICENSE_KEYSET_REFRESH_SECONDS: '0', LICENSE_PORT: 'x' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable).sort()).toEqual([
      'LICENSE_KEYSET_REFRESH_SECONDS',
      'LICENSE_MASTER_KEY',
      'LICENSE_PORT',
      'LICENSE_ROOT_PUBLIC_KEYS',
    ]);
    expect((error as ConfigError).message).not.toContain('abc');
  });

  it('accepts production only with both trust variables', () => {
    expect(() => loadLicenseConfig({ NODE_ENV: 'production', LICENSE_MASTER_KEY: hexEncode(key) })).toThrow(/LICENSE_ROOT_PUBLIC_KEYS/);
    expect(loadLicenseConfig({ NODE_ENV: 'production', LICENSE_MASTER_KEY: hexEncode(key), LICENSE_ROOT_PUBLIC_KEYS: root }).production).toBe(true);
  });

  it('hands the service its feature options only: no master key, roots, database URL or listen address', () => {
    const config = loadLicenseConfig({ LICENSE_MASTER_KEY: hexEncode(key), LICENSE_ROOT_PUBLIC_KEYS: root, LICENSE_DATABASE_URL: 'postgres://user:secret@db.example/license', LICENSE_KEYSET_REFRESH_SECONDS: '45' });
    const options = licenseServiceOptions(config, '9.9.9');
    expect(Object.keys(options).sort()).toEqual(
      ['adminRealm', 'adminTokenPrefix', 'analytics', 'auditAnchorSeconds', 'billing', 'clientRateLimits', 'epochs', 'integrity', 'keysetRefreshSeconds', 'seatReclaimSeconds', 'telemetry', 'trustProxy', 'version'],
    );
    expect(options).toMatchObject({ keysetRefreshSeconds: 45, version: '9.9.9', epochs: config.epochs, billing: config.billing });
    expect(JSON.stringify(options)).not.toContain('db.example');
  });
});
