import { describe, expect, it } from 'vitest';
import { analyticsPlatformOf } from './analytics-platform';

describe('analyticsPlatformOf', () => {
  it('keeps known platforms, folds aliases, and maps anything else to other', () => {
    expect(analyticsPlatformOf('linux-x64')).toBe('linux-x64');
    expect(analyticsPlatformOf('Darwin-aarch64')).toBe('macos-arm64');
    expect(analyticsPlatformOf('win32-ia32')).toBe('windows-x86');
    expect(analyticsPlatformOf('os123-x64')).toBe('other-x64');
    expect(analyticsPlatformOf('linux-myarch')).toBe('linux-other');
    expect(analyticsPlatformOf('a-b-c')).toBe('other-other');
    expect(analyticsPlatformOf('nodash')).toBe('other-other');
    expect(analyticsPlatformOf(null)).toBeNull();
  });

  it('maps 10,000 random client strings onto at most the closed list', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 10_000; index++) seen.add(analyticsPlatformOf(`${Math.random().toString(36).slice(2, 10)}-${index}`)!);
    expect(seen).toEqual(new Set(['other-other']));
  });
});
