import { cborRecord, field, optionalField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, codeSchema, protoVersionSchema, textSchema, uintSchema } from '../schemas';

/**
 * Why a device must stop: `1` license revoked, `2` machine revoked, `3` seat reclaimed, `4` fraud,
 * `5` refund, `6` signing epoch revoked, `7` release revoked.
 */
export type KillReason = 1 | 2 | 3 | 4 | 5 | 6 | 7;

/**
 * Every {@link KillReason}.
 *
 * @example
 * ```ts
 * import { killReasons } from '@tollgate/core/license';
 * killReasons.includes(order.reason); // true for every decoded kill order
 * ```
 */
export const killReasons: readonly KillReason[] = Object.freeze([1, 2, 3, 4, 5, 6, 7] as const);

/**
 * The signed order `POST /v1/validate` returns (same HTTP status as a ticket) when the device must stop
 * (kind `kill-order`, epoch-signed, product-bound). Bound to one machine and one request nonce, so it
 * works only inside that device's own session.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | licenseId | bstr(16) |
 * | 2 | machineId | bstr(16) |
 * | 3 | nonceEcho | bstr(32) |
 * | 4 | serverTime | uint |
 * | 5 | reason | uint 1–7 |
 * | 6? | userMessage | text, 1–512 bytes |
 * | 7 | revocationEpoch | uint |
 */
export interface KillOrder {
  protoVersion: 1;
  licenseId: Uint8Array;
  machineId: Uint8Array;
  nonceEcho: Uint8Array;
  serverTime: number;
  reason: KillReason;
  userMessage?: string;
  revocationEpoch: number;
}

/** Layout of {@link KillOrder}. */
export const killOrderSpec: CborRecordSpec<KillOrder> = cborRecord('KillOrder', {
  protoVersion: field(0, protoVersionSchema),
  licenseId: field(1, bytesSchema(licenseWireLengths.licenseId)),
  machineId: field(2, bytesSchema(licenseWireLengths.machineId)),
  nonceEcho: field(3, bytesSchema(licenseWireLengths.nonce)),
  serverTime: field(4, uintSchema),
  reason: field(5, codeSchema(killReasons, 'kill reason')),
  userMessage: optionalField(6, textSchema(1, 512)),
  revocationEpoch: field(7, uintSchema),
});
