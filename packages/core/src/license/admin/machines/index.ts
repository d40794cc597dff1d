export { machineOperations, type MachineOperationsDeps } from './machine-operations';
