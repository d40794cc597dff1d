export { accountMaxDevices, accountOperations } from './account-operations';
