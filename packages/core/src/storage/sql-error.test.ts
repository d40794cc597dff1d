import { describe, expect, it } from 'vitest';
import { SqlError, TollgateError } from '@tollgate/core';
import { isSerializationFailure, isUniqueViolation, toSqlError } from '@tollgate/core/storage';

describe('toSqlError', () => {
  it('keeps SQLSTATE fields and drops detail, query and parameters', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "seats_key"'), {
      code: '23505',
      severity: 'ERROR',
      constraint: 'seats_key',
      table: 'seats',
      detail: 'Key (token)=(secret-token) already exists.',
      query: 'INSERT …',
      params: ['secret-token'],
    });
    const mapped = toSqlError(driverError);
    expect(mapped).toBeInstanceOf(SqlError);
    expect(mapped).toBeInstanceOf(TollgateError);
    expect(mapped).toMatchObject({ code: '23505', constraint: 'seats_key', table: 'seats', details: { sqlState: '23505', constraint: 'seats_key' } });
    expect(JSON.stringify(mapped)).not.toContain('secret-token');
    expect((mapped as SqlError).cause).toBeUndefined();
    expect(isUniqueViolation(mapped, 'seats_key')).toBe(true);
  });

  it('leaves errors without a SQLSTATE unchanged', () => {
    const network = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(toSqlError(network)).toBe(network);
    const noSeverity = Object.assign(new Error('x'), { code: '23505' });
    expect(toSqlError(noSeverity)).toBe(noSeverity);
    expect(toSqlError('text')).toBe('text');
  });

  it('classifies serialization failures', () => {
    expect(isSerializationFailure(new SqlError({ code: '40001', message: 'x' }))).toBe(true);
    expect(isSerializationFailure(new SqlError({ code: '40P01', message: 'x' }))).toBe(true);
    expect(isSerializationFailure(new SqlError({ code: '23505', message: 'x' }))).toBe(false);
    expect(isSerializationFailure(new Error('40001'))).toBe(false);
  });
});
