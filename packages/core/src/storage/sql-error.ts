import { TollgateError } from '../errors/base';

/** SQLSTATE codes Tollgate's stores branch on (Postgres appendix A). */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  notNullViolation: '23502',
  checkViolation: '23514',
  exclusionViolation: '23P01',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  queryCanceled: '57014',
  undefinedTable: '42P01',
  inFailedTransaction: '25P02',
} as const;

/** Fields Postgres attaches to an error response, as kept by {@link SqlError}. */
export interface SqlErrorFields {
  /** The five-character SQLSTATE, for example `23505`. */
  code: string;
  /** The server's primary message. */
  message: string;
  /** Name of the violated constraint, when the error concerns one. */
  constraint?: string;
  /** Table, column, schema and data type the error concerns, when Postgres names them. */
  table?: string;
  column?: string;
  schema?: string;
  dataType?: string;
  /** `ERROR`, `FATAL`, … */
  severity?: string;
  /** The server's hint, if any. */
  hint?: string;
  /** 1-based character position in the statement text. */
  position?: string;
}

/**
 * A statement refused by Postgres, with the same shape on every driver. `code` is the SQLSTATE, so
 * stores map failures without matching on message text. The query parameters and the server's
 * `detail` line (which echoes key values) are deliberately not kept, so logging the error cannot leak
 * secrets bound as parameters.
 *
 * @example
 * ```ts
 * import { SqlError } from '@tollgate/core';
 * import { SqlState } from '@tollgate/core/storage';
 * try {
 *   await sql.query('INSERT INTO seats (license_id, device) VALUES ($1, $2)', [license, device]);
 * } catch (error) {
 *   if (error instanceof SqlError && error.code === SqlState.uniqueViolation) return 'already-active';
 *   throw error;
 * }
 * ```
 */
export class SqlError extends TollgateError {
  override readonly name: string = 'SqlError';
  /** The SQLSTATE (for example `23505`): stable, defined by Postgres. */
  declare readonly code: string;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  readonly column: string | undefined;
  readonly schema: string | undefined;
  readonly dataType: string | undefined;
  readonly severity: string | undefined;
  readonly hint: string | undefined;
  readonly position: string | undefined;

  constructor(fields: SqlErrorFields) {
    super(fields.code, fields.message, { details: { sqlState: fields.code, constraint: fields.constraint } });
    this.constraint = fields.constraint;
    this.table = fields.table;
    this.column = fields.column;
    this.schema = fields.schema;
    this.dataType = fields.dataType;
    this.severity = fields.severity;
    this.hint = fields.hint;
    this.position = fields.position;
  }
}

const sqlStatePattern = /^[0-9A-Z]{5}$/;

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Turns a driver's database error (pg's and PGlite's `DatabaseError` share a shape) into a
 * {@link SqlError}; anything else (network failures, bugs) is returned unchanged. Drivers call it on
 * every rejection.
 *
 * @param error - whatever the driver threw
 * @returns a `SqlError`, or `error` itself when it carries no SQLSTATE
 *
 * @example
 * ```ts
 * import { toSqlError } from '@tollgate/core/storage';
 * try { await driver.query(text); } catch (error) { throw toSqlError(error); }
 * ```
 */
export function toSqlError(error: unknown): unknown {
  if (error instanceof SqlError || typeof error !== 'object' || error === null) return error;
  const candidate = error as Record<string, unknown>;
  const code = candidate['code'];
  if (typeof code !== 'string' || !sqlStatePattern.test(code) || !('severity' in candidate)) return error;
  return new SqlError({
    code,
    message: optionalString(candidate['message']) ?? `Postgres error ${code}`,
    constraint: optionalString(candidate['constraint']),
    table: optionalString(candidate['table']),
    column: optionalString(candidate['column']),
    schema: optionalString(candidate['schema']),
    dataType: optionalString(candidate['dataType']),
    severity: optionalString(candidate['severity']),
    hint: optionalString(candidate['hint']),
    position: optionalString(candidate['position']),
  });
}

/**
 * True when `error` is a unique violation, optionally of one named constraint.
 *
 * @example
 * ```ts
 * import { isUniqueViolation } from '@tollgate/core/storage';
 * if (isUniqueViolation(error, 'payments_payment_id_key')) return existing();
 * ```
 */
export function isUniqueViolation(error: unknown, constraint?: string): error is SqlError {
  return (
    error instanceof SqlError &&
    error.code === SqlState.uniqueViolation &&
    (constraint === undefined || error.constraint === constraint)
  );
}

/**
 * True for the failures a retried transaction can succeed after: `40001` and `40P01`.
 *
 * @example
 * ```ts
 * import { isSerializationFailure } from '@tollgate/core/storage';
 * if (isSerializationFailure(error)) return retryLater();
 * ```
 */
export function isSerializationFailure(error: unknown): error is SqlError {
  return (
    error instanceof SqlError && (error.code === SqlState.serializationFailure || error.code === SqlState.deadlockDetected)
  );
}
