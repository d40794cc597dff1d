import { GatewayError } from '../../errors/gateway';

/**
 * Who asks for chain evidence: anyone (public deployment policy), or an authenticated merchant, who
 * sees only evidence about its own payTo addresses (active or retired: history stays theirs).
 */
export type EvidenceViewer =
  | { readonly kind: 'anyone' }
  | {
      readonly kind: 'merchant';
      readonly merchantId: string;
      /** The merchant's payTo addresses, lowercase. */
      readonly payTos: ReadonlySet<string>;
    };

/** The viewer of the public policy. */
export const anyoneViewer: EvidenceViewer = Object.freeze({ kind: 'anyone' });

/**
 * Whether `viewer` may see evidence about `address` (always, for `anyone`).
 *
 * @param viewer - The viewer.
 * @param address - An EVM address in any case.
 * @returns True when visible.
 * @example
 * ```ts
 * import { anyoneViewer, viewerOwns } from '@tollgate/core/gateway';
 * viewerOwns(anyoneViewer, '0x90F79bf6EB2c4f870365E785982E1f101E93b906'); // true
 * ```
 */
export function viewerOwns(viewer: EvidenceViewer, address: string | null | undefined): boolean {
  if (viewer.kind === 'anyone') return true;
  return typeof address === 'string' && viewer.payTos.has(address.toLowerCase());
}

/**
 * The refusal of evidence the viewer may not see: `not_found`, like every other tenant-isolated route,
 * so a merchant cannot tell another merchant's evidence from evidence that does not exist.
 *
 * @param what - What was asked for (for the message).
 * @returns The error to throw.
 * @example
 * ```ts
 * import { notVisible, viewerOwns } from '@tollgate/core/gateway';
 * if (!viewerOwns(viewer, receipt.payTo)) throw notVisible('receipt');
 * ```
 */
export function notVisible(what: string): GatewayError {
  return new GatewayError('not_found', `No ${what} of yours matches this request.`, { details: { reason: 'not_owned' } });
}
