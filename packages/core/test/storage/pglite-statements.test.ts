// The PGlite client's statement path (one protocol batch per statement, repeated statements prepared):
// what it must keep from PGlite's own `query()`, and what preparing must never break.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { SqlError, type SqlClient } from '@tollgate/core';
import { createPgliteClient, type PgliteSqlClient } from '@tollgate/core/pglite';
import { openTestDatabase, type TestDatabase } from '@tollgate/core/testing';

/** Named statements the session holds, from Postgres itself. */
async function preparedNames(db: PGlite): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
  return rows.map((row) => row.name);
}

describe('PGlite statements', () => {
  let database: TestDatabase;
  let db: PGlite;
  let sql: SqlClient;

  beforeEach(async () => {
    database = await openTestDatabase();
    sql = database.sql;
    db = (sql as PgliteSqlClient).db;
    await sql.exec('CREATE TABLE items (id int PRIMARY KEY, label text, created timestamptz)');
  });

  afterEach(async () => {
    await database.close();
  });

  it('prepares a statement on its second run and reuses it after', async () => {
    const insert = 'INSERT INTO items (id, label, created) VALUES ($1, $2, $3) RETURNING id, label, created';
    const first = await sql.query(insert, [1, 'one', new Date('2026-01-02T03:04:05.678Z')]);
    expect(await preparedNames(db)).toEqual([]);
    await sql.query(insert, [2, 'two', null]);
    await sql.query(insert, [3, 'three', null]);
    expect(await preparedNames(db)).toHaveLength(1);
    // Decoded exactly as the query() path decodes: int4 → number, timestamptz → Date.
    expect(first).toEqual({ rows: [{ id: 1, label: 'one', created: new Date('2026-01-02T03:04:05.678Z') }], rowCount: 1 });
    const counted = await sql.query('SELECT id FROM items ORDER BY id');
    expect(counted.rowCount).toBe(3);
    expect((await sql.query('UPDATE items SET label = $1', ['x'])).rowCount).toBe(3);
    expect((await sql.query('UPDATE items SET label = $1', ['y'])).rowCount).toBe(3);
  });

  it('prepares the statement again after a migration changed its result type', async () => {
    const select = 'SELECT * FROM items WHERE id = $1';
    await sql.query('INSERT INTO items (id, label) VALUES (1, $1)', ['one']);
    await sql.query(select, [1]);
    await sql.query(select, [1]);
    // A script changes the table: the runner forgets its plans.
    await sql.exec('ALTER TABLE items ADD COLUMN extra text');
    expect((await sql.query(select, [1])).rows[0]).toMatchObject({ id: 1, label: 'one', extra: null });
    // A change it was not told about (a second client's query): Postgres refuses the old plan once, the
    // statement is prepared again and run, the caller sees only the answer.
    await sql.query(select, [1]);
    await sql.query(select, [1]);
    await db.query('ALTER TABLE items ADD COLUMN more int');
    expect((await sql.query(select, [1])).rows[0]).toMatchObject({ id: 1, more: null });
  });

  it('reports errors as SqlError and keeps the session usable, inside and outside transactions', async () => {
    const insert = 'INSERT INTO items (id) VALUES ($1)';
    await sql.query(insert, [1]);
    await sql.query(insert, [2]);
    const duplicate = await sql.query(insert, [1]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(SqlError);
    expect(duplicate).toMatchObject({ code: '23505', constraint: 'items_pkey' });
    // A statement that fails to parse is never remembered as prepared.
    for (let i = 0; i < 3; i++) await expect(sql.query('SELECT nope FROM items WHERE id = $1', [1])).rejects.toMatchObject({ code: '42703' });
    await expect(
      sql.transaction(async (tx) => {
        await tx.query(insert, [3]);
        await tx.query(insert, [1]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await sql.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    await sql.transaction(async (tx) => {
      await tx.query(insert, [3]);
      await tx.query(insert, [4]);
    });
    expect((await sql.query('SELECT count(*)::int AS n FROM items')).rows).toEqual([{ n: 4 }]);
  });

  it('never interleaves a top-level statement into another caller’s transaction', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const inside = new Promise<void>((resolve) => (begun = resolve));
    const transaction = sql.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id) VALUES (1)');
      begun();
      await held;
      throw new Error('roll back');
    });
    await inside;
    // Issued while the transaction is open and idle: it must wait for it, not land inside it (and be
    // rolled back with it).
    const outside = sql.query('INSERT INTO items (id) VALUES (2)');
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await expect(transaction).rejects.toThrow('roll back');
    await outside;
    expect((await sql.query('SELECT id FROM items')).rows).toEqual([{ id: 2 }]);
  });

  it('shares statement names between clients of one instance and closes the least recently used beyond the cap', async () => {
    const second = await createPgliteClient({ db });
    for (let round = 0; round < 2; round++) {
      await sql.query('SELECT id FROM items WHERE id = $1', [1]);
      await second.query('SELECT id FROM items WHERE id = $1', [1]);
      await second.query('SELECT label FROM items WHERE id = $1', [1]);
      await sql.query('SELECT label FROM items WHERE id = $1', [1]);
    }
    expect(await preparedNames(db)).toHaveLength(2);
    // Many distinct statements, each run twice: the session never holds more than the cap (256).
    for (let i = 0; i < 300; i++) {
      await sql.query(`SELECT ${i} AS n FROM items WHERE id = $1`, [1]);
      await sql.query(`SELECT ${i} AS n FROM items WHERE id = $1`, [1]);
    }
    await sql.query('SELECT 1');
    expect((await preparedNames(db)).length).toBeLessThanOrEqual(256);
    await second.close();
  });

  it('gives one text one name however many runs of it are in flight', async () => {
    const select = 'SELECT id FROM items WHERE id = $1';
    for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 20 }, () => sql.query(select, [1])));
    expect(await preparedNames(db)).toHaveLength(1);
  });

  it('forgets its plans after DDL sent as a statement, also inside a transaction', async () => {
    const select = 'SELECT * FROM items WHERE id = $1';
    await sql.query('INSERT INTO items (id, label) VALUES (1, $1)', ['one']);
    await sql.query(select, [1]);
    await sql.query(select, [1]);
    await sql.query('ALTER TABLE items ADD COLUMN extra text');
    // Inside a transaction a stale plan could not be retried: it must not be used at all.
    await sql.transaction(async (tx) => {
      expect((await tx.query(select, [1])).rows[0]).toMatchObject({ id: 1, extra: null });
    });
  });

  it('refuses a statement that reaches the lock while the instance is closing', async () => {
    const own = await createPgliteClient();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = own.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await held;
    });
    const closing = own.db.close();
    // close() is now queued for the lock the transaction holds; this statement queues behind it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const late = own.query('SELECT 1');
    release();
    await transaction;
    await closing;
    await expect(late).rejects.toThrow(/PGlite is clos(ed|ing)/);
  });

  it('refuses statements once the instance is closed', async () => {
    const own = await createPgliteClient();
    await own.query('SELECT 1');
    await own.db.close();
    await expect(own.query('SELECT 1')).rejects.toThrow('PGlite is closed');
  });
});
