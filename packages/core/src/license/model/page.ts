// Keyset paging of the domain stores' lists. The Admin API parses and encodes them (admin/admin-input.ts),
// which re-exports them under the same names.

/** A page request: how many, and after which item. */
export interface AdminPage {
  readonly limit: number;
  /** The position after which the page starts (decoded from `cursor`). */
  readonly after: AdminCursorPosition | undefined;
}

/** A keyset position: the sort time in milliseconds and the id that breaks ties. */
export interface AdminCursorPosition {
  readonly at: number;
  readonly id: string;
}
