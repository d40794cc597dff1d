import { describe, expect, it } from 'vitest';
import { compareSemVer, isSemVer } from './semver';

describe('SemVer', () => {
  it.each(['0.0.0', '1.2.3', '10.20.30', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-0.3.7', '1.0.0-x.7.z.92', '1.0.0+20130313144700', '1.0.0-beta+exp.sha.5114f85'])('accepts %s', (version) => {
    expect(isSemVer(version)).toBe(true);
  });

  it.each(['1', '1.2', 'v1.2.3', '01.2.3', '1.02.3', '1.2.3-01', '1.2.3-', '1.2.3+', ' 1.2.3', '1.2.3 ', '1.2.3.4', `1.2.3-${'a'.repeat(130)}`, 7])('refuses %j', (version) => {
    expect(isSemVer(version)).toBe(false);
  });

  it('orders by precedence as semver.org §11 lists it', () => {
    // The example chain from the specification, plus numeric parts past 2^53.
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.9.0', '1.10.0', '2.0.0', '9007199254740993.0.0'];
    for (let index = 1; index < ordered.length; index++) {
      expect(compareSemVer(ordered[index - 1] as string, ordered[index] as string), `${ordered[index - 1]} < ${ordered[index]}`).toBeLessThan(0);
      expect(compareSemVer(ordered[index] as string, ordered[index - 1] as string)).toBeGreaterThan(0);
    }
    expect(compareSemVer('9007199254740992.0.0', '9007199254740993.0.0')).toBeLessThan(0);
  });

  it('ignores build metadata', () => {
    expect(compareSemVer('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(compareSemVer('1.0.0-rc.1+a', '1.0.0-rc.1')).toBe(0);
  });

  it('throws on a non-version', () => {
    expect(() => compareSemVer('1.0', '1.0.0')).toThrow(TypeError);
  });
});
