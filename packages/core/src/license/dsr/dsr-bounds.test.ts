import { describe, expect, it } from 'vitest';
import { createDsrScanBudget, DsrBoundExceededError, dsrBounds } from './dsr-bounds';

describe('DSR scan budget', () => {
  it('carries the spec’s bounds', () => {
    expect(dsrBounds).toEqual({ maxMachines: 500, maxScanDates: 400, maxScanRecords: 50_000, maxMatchedKeys: 20_000, maxAuditReferences: 100 });
  });

  it('counts days once however often they are charged, and refuses the day past the bound', () => {
    const scan = createDsrScanBudget({ ...dsrBounds, maxScanDates: 2 });
    scan.charge({ dates: ['2026-01-01', '2026-01-02'] });
    scan.charge({ dates: ['2026-01-02', '2026-01-01', '2026-01-02'] });
    expect(scan.usage().dates).toBe(2);
    const refusal = (() => {
      try {
        scan.charge({ dates: ['2026-01-03', '2026-01-03'] });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(DsrBoundExceededError);
    expect(refusal).toMatchObject({ bound: 'MAX_SCAN_DATES', limit: 2, needed: 3 });
    // A refused charge changes nothing.
    expect(scan.usage()).toEqual({ dates: 2, records: 0, matched: 0 });
  });

  it('allows exactly the bound of records and matches, and names the first bound crossed', () => {
    const scan = createDsrScanBudget({ ...dsrBounds, maxScanRecords: 10, maxMatchedKeys: 4 });
    scan.charge({ records: 10, matched: 4 });
    expect(scan.usage()).toEqual({ dates: 0, records: 10, matched: 4 });
    expect(() => scan.charge({ records: 1 })).toThrow(/MAX_SCAN_RECORDS allows 10/);
    expect(() => scan.charge({ matched: 1 })).toThrow(/MAX_MATCHED_KEYS allows 4/);
    expect(() => scan.charge({})).not.toThrow();
    expect(new DsrBoundExceededError('maxMachines', 500, 501).message).toBe('The subject needs 501 where MAX_DSR_MACHINES allows 500.');
  });
});
