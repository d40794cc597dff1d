import { beforeEach, expect, it } from 'vitest';
import { TollgateError } from '../errors/base';
import type { SqlClient } from '../storage/sql-client';
import { SqlError, SqlState, isUniqueViolation } from '../storage/sql-error';

/** Registers the value-mapping and error-mapping cases of the SqlClient suite. */
export function sqlClientValueCases(client: () => SqlClient): void {
  beforeEach(async () => {
    await client().exec(`
      DROP TABLE IF EXISTS conformance_values;
      CREATE TABLE conformance_values (
        id integer PRIMARY KEY,
        label text CONSTRAINT conformance_values_label_key UNIQUE,
        big bigint, exact numeric, real_number double precision, flag boolean, moment timestamptz,
        bytes bytea, doc jsonb, tags text[], counts integer[]
      );`);
  });

  it('decodes every documented type to the same JS value', async () => {
    const { rows } = await client().query(`SELECT
      1::int2 AS small, 2::int4 AS regular, 9007199254740993::int8 AS big, 12345678901234567890.125::numeric AS exact,
      1.5::float8 AS double_value, 0.25::float4 AS single_value, 'NaN'::float8 AS not_a_number,
      true AS yes, false AS no, 'plain'::text AS plain, 'v'::varchar(4) AS short_text, 'c'::char(2) AS padded,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS id,
      '{"a":[1,"x",null],"b":{"c":true}}'::json AS json_value, '{"n":12.5}'::jsonb AS jsonb_value,
      '\\x00ff10'::bytea AS bytes, ''::bytea AS no_bytes,
      '2026-03-04 05:06:07.891+02'::timestamptz AS moment, '0044-03-15 12:00:00+00 BC'::timestamptz AS ancient,
      'infinity'::timestamptz AS forever, '-infinity'::timestamptz AS never,
      '2026-03-04 05:06:07'::timestamp AS local_moment, '2026-03-04'::date AS day, '1 day 02:00:00'::interval AS span,
      '{1,NULL,3}'::int4[] AS ints, '{9007199254740993,2}'::int8[] AS bigs, '{"a,b","c\\"d",NULL,""}'::text[] AS texts,
      '{{1,2},{3,4}}'::int4[] AS matrix, '{t,f}'::bool[] AS flags, ARRAY['{"k":1}'::jsonb] AS docs,
      ARRAY['2026-01-01 00:00:00+00'::timestamptz] AS moments, '{}'::text[] AS empty_texts,
      NULL::text AS missing, NULL::int4[] AS missing_array`);
    const row = rows[0];
    expect(row).toEqual({
      small: 1,
      regular: 2,
      big: '9007199254740993',
      exact: '12345678901234567890.125',
      double_value: 1.5,
      single_value: 0.25,
      not_a_number: Number.NaN,
      yes: true,
      no: false,
      plain: 'plain',
      short_text: 'v',
      padded: 'c ',
      id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      json_value: { a: [1, 'x', null], b: { c: true } },
      jsonb_value: { n: 12.5 },
      bytes: new Uint8Array([0, 255, 16]),
      no_bytes: new Uint8Array([]),
      moment: new Date(Date.UTC(2026, 2, 4, 3, 6, 7, 891)),
      ancient: new Date(Date.parse('-000043-03-15T12:00:00Z')),
      forever: new Date(8.64e15),
      never: new Date(-8.64e15),
      local_moment: '2026-03-04 05:06:07',
      day: '2026-03-04',
      span: '1 day 02:00:00',
      ints: [1, null, 3],
      bigs: ['9007199254740993', '2'],
      texts: ['a,b', 'c"d', null, ''],
      matrix: [
        [1, 2],
        [3, 4],
      ],
      flags: [true, false],
      docs: [{ k: 1 }],
      moments: [new Date(Date.UTC(2026, 0, 1))],
      empty_texts: [],
      missing: null,
      missing_array: null,
    });
    // Exact classes, not look-alikes: a Node Buffer would pass toEqual but is not what every driver returns.
    expect(Object.getPrototypeOf(row?.['bytes'])).toBe(Uint8Array.prototype);
    expect(row?.['moment']).toBeInstanceOf(Date);
  });

  it('round-trips every parameter type', async () => {
    const moment = new Date(Date.UTC(2026, 5, 7, 8, 9, 10, 123));
    const bytes = new Uint8Array([0, 1, 92, 34, 255]);
    const doc = { name: 'o"k', nested: [1, { deep: null }], unicode: 'é€' };
    const tags = ['a,b', 'c"d', 'e\\f', null, '', 'NULL'];
    await client().query(
      `INSERT INTO conformance_values (id, label, big, exact, real_number, flag, moment, bytes, doc, tags, counts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [1, "it's", 9007199254740993n, '0.1', -2.5, false, moment, bytes, doc, tags, [3, null, 4]],
    );
    await client().query('INSERT INTO conformance_values (id, label, doc) VALUES ($1, $2, $3)', [2, null, undefined]);
    const { rows } = await client().query('SELECT * FROM conformance_values ORDER BY id');
    expect(rows).toEqual([
      {
        id: 1,
        label: "it's",
        big: '9007199254740993',
        exact: '0.1',
        real_number: -2.5,
        flag: false,
        moment,
        bytes,
        doc,
        tags,
        counts: [3, null, 4],
      },
      { id: 2, label: null, big: null, exact: null, real_number: null, flag: null, moment: null, bytes: null, doc: null, tags: null, counts: null },
    ]);
  });

  it('refuses parameters with no SQL meaning', async () => {
    await expect(client().query('SELECT $1::text', [() => 1])).rejects.toThrow(TypeError);
    await expect(client().query('SELECT $1::timestamptz', [new Date(Number.NaN)])).rejects.toThrow(TypeError);
  });

  it('reports row counts for reads and writes, 0 for DDL', async () => {
    const inserted = await client().query(
      'INSERT INTO conformance_values (id) SELECT generate_series(1, 3)',
    );
    expect(inserted.rowCount).toBe(3);
    const updated = await client().query('UPDATE conformance_values SET flag = true WHERE id > 1 RETURNING id');
    expect(updated.rowCount).toBe(2);
    expect(updated.rows.map((row) => row['id']).sort()).toEqual([2, 3]);
    const selected = await client().query('SELECT id FROM conformance_values');
    expect(selected.rowCount).toBe(3);
    const created = await client().query('CREATE TEMPORARY TABLE conformance_scratch (x int)');
    expect(created).toEqual({ rows: [], rowCount: 0 });
    await client().query('DROP TABLE conformance_scratch');
  });

  it('maps a unique violation to SqlError 23505 with the constraint name, without leaking parameters', async () => {
    const secret = 'tok_live_do_not_log';
    await client().query('INSERT INTO conformance_values (id, label) VALUES (1, $1)', [secret]);
    const error = await client()
      .query('INSERT INTO conformance_values (id, label) VALUES (2, $1)', [secret])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SqlError);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: SqlState.uniqueViolation, constraint: 'conformance_values_label_key', table: 'conformance_values' });
    expect(isUniqueViolation(error, 'conformance_values_label_key')).toBe(true);
    expect(isUniqueViolation(error, 'another_constraint')).toBe(false);
    expect(`${String(error)} ${JSON.stringify(error)} ${(error as Error).stack ?? ''}`).not.toContain(secret);
  });

  it('maps other refusals to their SQLSTATE', async () => {
    await expect(client().query('SELECT * FROM conformance_missing_table')).rejects.toMatchObject({ code: SqlState.undefinedTable });
    await expect(client().query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
    await expect(client().query('INSERT INTO conformance_values (id) VALUES (NULL)')).rejects.toMatchObject({
      code: SqlState.notNullViolation,
    });
    await expect(client().query('SELECT $1::int', ['not a number'])).rejects.toMatchObject({ code: '22P02' });
  });

  it('runs scripts with exec but one statement per query', async () => {
    await client().exec(`INSERT INTO conformance_values (id) VALUES (1); INSERT INTO conformance_values (id) VALUES (2);`);
    expect((await client().query('SELECT count(*)::int AS n FROM conformance_values')).rows).toEqual([{ n: 2 }]);
    await expect(client().query('SELECT 1; SELECT 2')).rejects.toBeInstanceOf(SqlError);
  });

  it('runs sessions in UTC with the ISO date style', async () => {
    const { rows } = await client().query(`SELECT current_setting('TimeZone') AS zone, current_setting('DateStyle') AS style,
      '2026-01-02 03:04:05+00'::timestamptz::text AS printed`);
    expect(rows).toEqual([{ zone: 'UTC', style: 'ISO, MDY', printed: '2026-01-02 03:04:05+00' }]);
  });
}
