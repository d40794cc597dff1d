export { TollgateError, isTollgateError, type TollgateErrorOptions } from './base';
export { RequestError, requestErrorStatus, type RequestErrorCode } from './request';
export { GatewayError, gatewayErrorCodes, isGatewayErrorCode, type GatewayErrorCode, type GatewayErrorGroup } from './gateway';
export { LicenseClientError, licenseClientErrorCodes, type LicenseClientErrorCode } from './license-client';
export { AdminError, adminErrorCodes, transientAdminErrorCodes, type AdminErrorCode } from './admin';
export {
  renderGatewayError,
  renderLicenseClientError,
  renderAdminError,
  type RenderedError,
  type GatewayErrorBody,
  type AdminErrorBody,
} from './render';
