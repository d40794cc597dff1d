// The field reports of /verify-receipt and /verify-refund-receipt answers (`context.fields`, `chain.fields`).

/** One compared field of a verification answer. */
export interface VerificationField {
  field: string;
  expected: unknown;
  found: unknown;
  match: boolean;
  source: string;
}

/** The names of the fields that did not match. */
export function mismatched(fields: readonly Pick<VerificationField, 'field' | 'match'>[]): string[] {
  return fields.filter((entry) => !entry.match).map((entry) => entry.field);
}
