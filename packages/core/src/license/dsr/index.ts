// Public exports of the data-subject-request area (docs/decisions.md "Data-subject requests").
export { createDsrScanBudget, DsrBoundExceededError, dsrBoundNames, dsrBounds, type DsrBounds, type DsrRefusingBound, type DsrScanBudget, type DsrScanUsage } from './dsr-bounds';
export { coreSubjectDataSources, licenseRecordsSource, machineRecordsSource, suspicionSource } from './core-sources';
export { dsrAuditReferences, dsrLicenseSteps, dsrMachineSteps, previewDsrErasure, runDsrErasure, type DsrAuditReferences, type DsrErasureCounts } from './dsr-engine';
export { dsrOperations, type DsrOperationsDeps } from './dsr-operations';
export { resolveDsrScope } from './dsr-scope';
export type { DsrExportRecords, DsrScope, DsrSubject, LicenseErasureStep, SubjectDataSource } from './subject-data-source';
export type { ErasureScanBudget } from '../model/machines/machine-erasure';
