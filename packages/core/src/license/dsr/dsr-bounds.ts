import type { ErasureScanBudget } from '../model/machines/machine-erasure';

/** The bounds of one data-subject request (license spec, "Limits": DSR bounds). */
export interface DsrBounds {
  /** MAX_DSR_MACHINES: machines one request may cover (a license subject's machines). */
  readonly maxMachines: number;
  /** MAX_SCAN_DATES: distinct days the telemetry and analytics scans may cover. */
  readonly maxScanDates: number;
  /** MAX_SCAN_RECORDS: stored records the scans may read. */
  readonly maxScanRecords: number;
  /** MAX_MATCHED_KEYS: records of the subject the scans may match (and erase). */
  readonly maxMatchedKeys: number;
  /** MAX_AUDIT_REFERENCES: audit events an answer lists (more are reported as truncated, never refused). */
  readonly maxAuditReferences: number;
}

/** The spec's DSR bounds. */
export const dsrBounds: DsrBounds = Object.freeze({ maxMachines: 500, maxScanDates: 400, maxScanRecords: 50_000, maxMatchedKeys: 20_000, maxAuditReferences: 100 });

/** The spec's name of each bound, as refusals spell it. */
export const dsrBoundNames = Object.freeze({
  maxMachines: 'MAX_DSR_MACHINES',
  maxScanDates: 'MAX_SCAN_DATES',
  maxScanRecords: 'MAX_SCAN_RECORDS',
  maxMatchedKeys: 'MAX_MATCHED_KEYS',
  maxAuditReferences: 'MAX_AUDIT_REFERENCES',
} as const satisfies Record<keyof DsrBounds, string>);

/** A bound that refuses a request (the audit-reference bound only truncates). */
export type DsrRefusingBound = Exclude<keyof DsrBounds, 'maxAuditReferences'>;

/**
 * A request crossed one of the DSR bounds. The operations answer it as 422 `dsr_bound_exceeded`; thrown
 * inside the erasure's transaction, it rolls everything back, so nothing is half-erased.
 *
 * @example
 * ```ts
 * import { DsrBoundExceededError } from '@tollgate/core/license';
 * throw new DsrBoundExceededError('maxMachines', 500, 612);
 * ```
 */
export class DsrBoundExceededError extends Error {
  override readonly name = 'DsrBoundExceededError';
  /** The spec's name of the bound (`MAX_SCAN_RECORDS`). */
  readonly bound: string;

  constructor(
    readonly key: DsrRefusingBound,
    readonly limit: number,
    /** What the subject needs, at least (a scan stops counting at the bound). */
    readonly needed: number,
  ) {
    const bound = dsrBoundNames[key];
    super(`The subject needs ${key === 'maxMachines' ? '' : 'at least '}${needed} where ${bound} allows ${limit}.`);
    this.bound = bound;
  }
}

/** What a scan budget has been charged so far. */
export interface DsrScanUsage {
  readonly dates: number;
  readonly records: number;
  readonly matched: number;
}

/** An {@link ErasureScanBudget} that also reports its usage. */
export interface DsrScanBudget extends ErasureScanBudget {
  usage(): DsrScanUsage;
}

/**
 * The scan budget of one request: distinct days, records read and records matched, each refused past
 * its bound. Days are counted as a set (a license's machines scanning the same day count it once).
 *
 * @param bounds - The bounds (the spec's by default).
 * @returns A fresh budget.
 * @example
 * ```ts
 * import { createDsrScanBudget } from '@tollgate/core/license';
 * const scan = createDsrScanBudget();
 * scan.charge({ dates: ['2026-05-01'], records: 12, matched: 12 });
 * ```
 */
export function createDsrScanBudget(bounds: DsrBounds = dsrBounds): DsrScanBudget {
  const days = new Set<string>();
  let records = 0;
  let matched = 0;
  return {
    charge(use) {
      const newDays = (use.dates ?? []).filter((day) => !days.has(day));
      const nextDays = days.size + new Set(newDays).size;
      if (nextDays > bounds.maxScanDates) throw new DsrBoundExceededError('maxScanDates', bounds.maxScanDates, nextDays);
      const nextRecords = records + (use.records ?? 0);
      if (nextRecords > bounds.maxScanRecords) throw new DsrBoundExceededError('maxScanRecords', bounds.maxScanRecords, nextRecords);
      const nextMatched = matched + (use.matched ?? 0);
      if (nextMatched > bounds.maxMatchedKeys) throw new DsrBoundExceededError('maxMatchedKeys', bounds.maxMatchedKeys, nextMatched);
      for (const day of newDays) days.add(day);
      records = nextRecords;
      matched = nextMatched;
    },
    usage: () => ({ dates: days.size, records, matched }),
  };
}
