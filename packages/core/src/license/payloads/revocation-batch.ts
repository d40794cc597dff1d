import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths, maxRevocationBatchIds } from '../protocol';
import { positiveUintSchema, protoVersionSchema, sortedIdListSchema, uintSchema } from '../schemas';

/**
 * One published step of the revocation feed (kind `revocation-batch`, signed by a global epoch, not
 * product-bound). Batch `seq` moves the revocation epoch from `seq − 1` to `seq`; batches never change
 * once published.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | seq | uint ≥ 1, the revocation epoch after this batch |
 * | 2 | issuedAt | uint |
 * | 3 | licenseIds | array of bstr(16), strictly ascending |
 * | 4 | machineIds | array of bstr(16), strictly ascending |
 * | 5 | epochIds | array of bstr(8), strictly ascending |
 *
 * At least one id in total and at most 1,024.
 */
export interface RevocationBatch {
  protoVersion: 1;
  seq: number;
  issuedAt: number;
  licenseIds: Uint8Array[];
  machineIds: Uint8Array[];
  epochIds: Uint8Array[];
}

/** Layout of {@link RevocationBatch}. */
export const revocationBatchSpec: CborRecordSpec<RevocationBatch> = cborRecord(
  'RevocationBatch',
  {
    protoVersion: field(0, protoVersionSchema),
    seq: field(1, positiveUintSchema),
    issuedAt: field(2, uintSchema),
    licenseIds: field(3, sortedIdListSchema(licenseWireLengths.licenseId, maxRevocationBatchIds)),
    machineIds: field(4, sortedIdListSchema(licenseWireLengths.machineId, maxRevocationBatchIds)),
    epochIds: field(5, sortedIdListSchema(licenseWireLengths.epochId, maxRevocationBatchIds)),
  },
  (batch) => {
    const total = batch.licenseIds.length + batch.machineIds.length + batch.epochIds.length;
    if (total === 0) return 'a batch revokes at least one id';
    return total > maxRevocationBatchIds ? `a batch holds at most ${maxRevocationBatchIds} ids` : undefined;
  },
);
