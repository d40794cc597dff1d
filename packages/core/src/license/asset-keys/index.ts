// Public exports of the asset-keys area: per-(release, feature) keys, wrapped to devices, sealed assets.
export { assetKeyLengths, decodeWrappedAssetKeys, maxWrappedAssetKeys, wrappedAssetKeySpec, wrappedAssetKeysSpec, type WrappedAssetKey, type WrappedAssetKeys } from './asset-key-wire';
export { assetKeyFingerprint, assetKeyFingerprintHex, assetKeyFingerprintLabel } from './asset-key-fingerprint';
export {
  assetKeyWrapAad,
  assetKeyWrapContext,
  assetKeyWrapLabel,
  unwrapAssetKey,
  wrapAssetKeys,
  type AssetKeyCarrier,
  type AssetKeyCarrierKind,
  type AssetKeyWrapContext,
} from './asset-key-wrap';
export { assetKeySealLabel, assetKeySealSubkeyLabel, assetKeySealVersion, deriveAssetKeySealKey, openAssetKey, sealAssetKey, sealedAssetKeyLength } from './asset-key-seal';
export { openSealedAsset, readSealedAssetHeader, sealAsset, sealedAssetHeaderSpec, sealedAssetMagic, type SealedAssetHeader } from './sealed-asset';
export { assetKekView, createSqlAssetKekStore, type AssetKekRecord, type AssetKekStore, type NewAssetKek } from './asset-key-store';
export { assetKeyCacheTtlMs, createAssetKeySource, type AssetKeySource } from './asset-key-source';
export { grantAssetKeys } from './asset-key-grant';
export { assetKeyOperations, type AssetKeyOperationsDeps } from './asset-key-operations';
