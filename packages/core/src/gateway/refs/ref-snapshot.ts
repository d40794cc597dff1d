/** The immutable payment snapshot of a ref (spec "Snapshot fields"); `expiresAt` is unix seconds. */
export interface RefSnapshot {
  readonly v: 2;
  readonly scheme: 'exact';
  /** Network name as the API takes it. */
  readonly network: string;
  readonly payTo: string;
  readonly asset: 'USDC';
  /** Atomic amount; absent for an open ref. */
  readonly amount?: string;
  /** Resource URL: `<publicUrl>/receive/<payTo>?ref=<refId>`. */
  readonly resource: string;
  readonly invoiceId?: string;
  readonly description?: string;
  readonly mimeType: 'application/json';
  readonly expiresAt: number;
}

/** The facts of a ref's snapshot, as {@link buildRefSnapshot} takes them. */
export interface RefSnapshotFacts {
  /** Network name as the API takes it. */
  readonly network: string;
  /** EIP-55 checksummed. */
  readonly payTo: string;
  readonly asset: 'USDC';
  /** Atomic amount; `undefined` for an open ref. */
  readonly amount?: string | undefined;
  /** The receive URL the payment is for. */
  readonly resource: string;
  readonly invoiceId?: string | undefined;
  readonly description?: string | undefined;
  /** Unix seconds. */
  readonly expiresAt: number;
}

/**
 * A ref's snapshot with the keys in the order `POST /ref` writes them (the snapshot is stored and served
 * as that exact JSON text, so the order is part of what a merchant may hash). Order refs and refund refs
 * are built with it, so their snapshots read exactly like those of `POST /ref`.
 *
 * @param facts - Network, payTo, asset, amount, resource, invoice id, description, expiry.
 * @returns The snapshot (absent optional facts are left out, never `null`).
 * @example
 * ```ts
 * import { buildRefSnapshot } from '@tollgate/core/gateway';
 * const snapshot = buildRefSnapshot({ network: 'base', payTo, asset: 'USDC', amount: '10000', resource: `${origin}/receive/${payTo}?ref=${refId}`, expiresAt });
 * const snapshotJson = JSON.stringify(snapshot);
 * ```
 */
export function buildRefSnapshot(facts: RefSnapshotFacts): RefSnapshot {
  return {
    v: 2,
    scheme: 'exact',
    network: facts.network,
    payTo: facts.payTo,
    asset: facts.asset,
    ...(facts.amount === undefined ? {} : { amount: facts.amount }),
    resource: facts.resource,
    ...(facts.invoiceId === undefined ? {} : { invoiceId: facts.invoiceId }),
    ...(facts.description === undefined ? {} : { description: facts.description }),
    mimeType: 'application/json',
    expiresAt: facts.expiresAt,
  };
}
