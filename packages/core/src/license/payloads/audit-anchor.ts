import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { bytesSchema, positiveUintSchema, protoVersionSchema, uintSchema } from '../schemas';

/** Byte length of a vendor id (32 hex digits in the Admin API). */
export const auditAnchorVendorIdLength = 16;
/** Byte length of an audit chain hash (SHA-256). */
export const auditAnchorHeadLength = 32;

/**
 * A signed statement that a vendor's audit chain had `seq` events ending in hash `head` at `anchoredAt`
 * (kind `audit-anchor`, signed by a global epoch, not product-bound). Whoever holds the pinned root can
 * then prove that the first `seq` events were not rewritten afterwards: their recomputed chain must still
 * end in `head`.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | vendorId | bstr(16) |
 * | 2 | seq | uint ≥ 1, the number of events anchored |
 * | 3 | head | bstr(32), the hash of event `seq` |
 * | 4 | anchoredAt | uint, unix seconds |
 */
export interface AuditAnchor {
  protoVersion: 1;
  vendorId: Uint8Array;
  seq: number;
  head: Uint8Array;
  anchoredAt: number;
}

/** Layout of {@link AuditAnchor}. */
export const auditAnchorSpec: CborRecordSpec<AuditAnchor> = cborRecord('AuditAnchor', {
  protoVersion: field(0, protoVersionSchema),
  vendorId: field(1, bytesSchema(auditAnchorVendorIdLength)),
  seq: field(2, positiveUintSchema),
  head: field(3, bytesSchema(auditAnchorHeadLength)),
  anchoredAt: field(4, uintSchema),
});
