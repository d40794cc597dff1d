export {
  createSqlMachineStore,
  machineView,
  type InsertMachineOutcome,
  type MachineListQuery,
  type MachineLockOutcome,
  type MachineRecord,
  type MachineStatus,
  type MachineStore,
  type NewMachine,
} from './machine-store';
export { eraseMachine, machineErasureSteps, machineRecordErasure, previewMachineErasure, type MachineErasureStep } from './machine-erasure';
