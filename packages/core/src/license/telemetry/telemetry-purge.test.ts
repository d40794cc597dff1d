import { describe, expect, it } from 'vitest';
import { purgeDateProblem, telemetryPurgeWindow } from './telemetry-purge';

describe('telemetry purge window', () => {
  const now = new Date('2026-05-20T12:00:00Z');

  it('cuts raw rows at now − retention, and at before when that is later', () => {
    expect(telemetryPurgeWindow(now, 30)).toEqual({ cutoff: new Date('2026-04-20T12:00:00Z'), before: undefined });
    expect(telemetryPurgeWindow(now, 7)).toEqual({ cutoff: new Date('2026-05-13T12:00:00Z'), before: undefined });
    expect(telemetryPurgeWindow(now, 30, '2026-01-01')).toEqual({ cutoff: new Date('2026-04-20T12:00:00Z'), before: '2026-01-01' });
    expect(telemetryPurgeWindow(now, 30, '2026-05-01')).toEqual({ cutoff: new Date('2026-05-01T00:00:00Z'), before: '2026-05-01' });
  });

  it('accepts real calendar days up to today and names what is wrong otherwise', () => {
    for (const day of ['2026-05-20', '2024-02-29', '1970-01-01']) expect(purgeDateProblem(day, '2026-05-20')).toBeUndefined();
    for (const day of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-5-01', ' 2026-05-01', '2026-05-01T00:00:00Z']) expect(purgeDateProblem(day, '2026-05-20')).toMatch(/real calendar day/);
    expect(purgeDateProblem('2026-05-21', '2026-05-20')).toBe('before must be today (2026-05-20) or earlier');
  });
});
