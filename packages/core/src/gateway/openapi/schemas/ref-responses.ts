import * as v from 'valibot';
import type { CreatedRef, PublicRef, RefPage, RefSnapshot, RevokedRef } from '../../refs/ref-service';
import { named } from '../../../openapi/descriptors';
import { addressOut, decimalOut, describes, refIdOut, unixSeconds } from './common';

/** Response schemas of the ref routes (`ref-routes.ts`), each tied to its service type. */

/** The immutable payment snapshot (`components.schemas.RefSnapshot`). */
export const refSnapshotSchema = named(
  'RefSnapshot',
  describes<RefSnapshot>()(
    v.pipe(
      v.object({
        v: v.literal(2),
        scheme: v.literal('exact'),
        network: v.pipe(v.string(), v.description('Network name as the API takes it (base, base-sepolia, local).')),
        payTo: addressOut,
        asset: v.literal('USDC'),
        amount: v.optional(v.pipe(decimalOut, v.description('Atomic units; absent for an open ref.'))),
        resource: v.pipe(v.string(), v.description('The receive URL: <publicUrl>/receive/<payTo>?ref=<refId>.')),
        invoiceId: v.optional(v.string()),
        description: v.optional(v.string()),
        mimeType: v.literal('application/json'),
        expiresAt: unixSeconds,
      }),
      v.description('The immutable payment snapshot: store it with the business record to match receipts later.'),
    ),
  ),
);

const createdEntries = {
  refId: refIdOut,
  refUrl: v.pipe(v.string(), v.description('Transport-safe URL of the ref.')),
  snapshot: refSnapshotSchema.schema,
};

/** `POST /ref` → 201. */
export const createdRefResponse = named('CreatedRef', describes<CreatedRef>()(v.object(createdEntries)));

const refStatus = v.picklist(['active', 'revoked']);

/** `GET /ref/:refId` → 200. */
export const publicRefResponse = named('PublicRef', describes<PublicRef>()(v.object({ ...createdEntries, status: refStatus })));

/** `GET /ref` → 200. */
export const refPageResponse = named(
  'RefPage',
  describes<RefPage>()(
    v.object({
      items: v.array(
        v.object({
          refId: refIdOut,
          payTo: addressOut,
          network: v.string(),
          asset: v.string(),
          amount: v.optional(decimalOut),
          invoiceId: v.optional(v.string()),
          label: v.optional(v.string()),
          createdAt: unixSeconds,
          expiresAt: unixSeconds,
          status: refStatus,
        }),
      ),
      nextCursor: v.optional(v.pipe(v.string(), v.description('Present while more items exist: pass it back unchanged as cursor.'))),
    }),
  ),
);

/** `POST /ref/:refId/revoke` → 200. */
export const revokedRefResponse = named('RevokedRef', describes<RevokedRef>()(v.object({ refId: refIdOut, status: v.literal('revoked'), revokedAt: unixSeconds })));
