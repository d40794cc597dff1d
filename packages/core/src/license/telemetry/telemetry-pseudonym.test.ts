import { describe, expect, it } from 'vitest';
import { keyedHash, keyedHashLabels } from '../../crypto/keyed-hash';
import { deriveLicenseAdminKeys, deriveLicenseSubkey } from '../admin/admin-keys';
import { deriveTelemetryPseudonymKey, telemetryPseudonymSubkeyLabel, telemetrySubject } from './telemetry-pseudonym';

describe('telemetry pseudonyms', () => {
  const masterKey = new Uint8Array(32).fill(7);
  const machineId = '0123456789abcdef0123456789abcdef';

  it('are stable HMACs of the machine id under their own subkey and label', () => {
    const key = deriveTelemetryPseudonymKey(masterKey);
    expect(key).toEqual(deriveLicenseSubkey(masterKey, telemetryPseudonymSubkeyLabel));
    expect(telemetrySubject(key, machineId)).toBe(telemetrySubject(deriveTelemetryPseudonymKey(new Uint8Array(32).fill(7)), machineId));
    expect(telemetrySubject(key, machineId)).toBe(keyedHash(key, machineId, keyedHashLabels.analyticsPseudonym));
    expect(telemetrySubject(key, machineId)).toMatch(/^[0-9a-f]{64}$/);
    expect(telemetrySubject(key, machineId)).not.toBe(telemetrySubject(key, `${machineId.slice(0, 31)}0`));
    expect(telemetrySubject(deriveTelemetryPseudonymKey(new Uint8Array(32).fill(8)), machineId)).not.toBe(telemetrySubject(key, machineId));
  });

  it('never equal the license-key HMAC of the same text', () => {
    const { licenseKeyHash } = deriveLicenseAdminKeys(masterKey);
    const subject = telemetrySubject(deriveTelemetryPseudonymKey(masterKey), machineId);
    expect(subject).not.toBe(keyedHash(licenseKeyHash, machineId, keyedHashLabels.licenseKey));
    expect(subject).not.toBe(keyedHash(licenseKeyHash, machineId, keyedHashLabels.analyticsPseudonym));
    expect(() => telemetrySubject(deriveTelemetryPseudonymKey(masterKey), 'not-a-machine-id')).toThrow(TypeError);
  });
});
