import { describe, expect, it } from 'vitest';
import { coreMigrations } from '@tollgate/core';
import { MigrationError, defineMigrations, migrationChecksum } from '@tollgate/core/storage';
import { thrownBy } from '../../../test/support/thrown';

const refusal = (run: () => unknown): MigrationError => thrownBy(MigrationError, run);

describe('defineMigrations', () => {
  it('orders migrations by the number in their file name, with or without leading zeros', () => {
    const set = defineMigrations('demo', { '003_c.sql': 'SELECT 3;', '2_b.sql': 'SELECT 2;', '001_a.sql': 'SELECT 1;' });
    expect(set.migrations.map((migration) => migration.name)).toEqual(['001_a.sql', '2_b.sql', '003_c.sql']);
  });

  it('builds an ordered set with checksums', () => {
    const set = defineMigrations('demo', { '002_b.sql': 'SELECT 2;', '001_a.sql': 'SELECT 1;' });
    expect(set.domain).toBe('demo');
    expect(set.migrations.map(({ version, name }) => ({ version, name }))).toEqual([
      { version: 1, name: '001_a.sql' },
      { version: 2, name: '002_b.sql' },
    ]);
    expect(set.migrations[0]?.checksum).toBe(migrationChecksum('SELECT 1;'));
    expect(set.migrations[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a gap in the numbering', () => {
    const error = refusal(() => defineMigrations('demo', { '001_a.sql': 'SELECT 1;', '003_c.sql': 'SELECT 3;' }));
    expect(error).toMatchObject({ code: 'migration_list_invalid', details: { domain: 'demo', missingVersion: 2, file: '003_c.sql' } });
  });

  it('refuses a list that does not start at 1', () => {
    expect(refusal(() => defineMigrations('demo', { '002_b.sql': 'SELECT 2;' })).details).toMatchObject({ missingVersion: 1 });
  });

  it('refuses two files with the same number', () => {
    const error = refusal(() => defineMigrations('demo', { '001_a.sql': 'SELECT 1;', '1_b.sql': 'SELECT 2;' }));
    expect(error).toMatchObject({ code: 'migration_list_invalid', details: { version: 1, files: ['001_a.sql', '1_b.sql'] } });
  });

  it('refuses badly named and empty files and bad domains', () => {
    expect(refusal(() => defineMigrations('demo', { 'a_first.sql': 'SELECT 1;' })).details).toMatchObject({ file: 'a_first.sql' });
    expect(refusal(() => defineMigrations('demo', { '001_a.txt': 'SELECT 1;' })).details).toMatchObject({ file: '001_a.txt' });
    expect(refusal(() => defineMigrations('demo', { '001_a.sql': '  \n' })).details).toMatchObject({ file: '001_a.sql' });
    expect(refusal(() => defineMigrations('Bad Domain', {})).code).toBe('migration_list_invalid');
  });

  it('ignores line-ending conversions in checksums but not edits', () => {
    expect(migrationChecksum('CREATE TABLE t (id int);\r\nSELECT 1;\r\n')).toBe(migrationChecksum('CREATE TABLE t (id int);\nSELECT 1;\n'));
    expect(migrationChecksum('CREATE TABLE t (id bigint);')).not.toBe(migrationChecksum('CREATE TABLE t (id int);'));
  });

  it('exports the core domain', () => {
    expect(coreMigrations.domain).toBe('core');
    expect(coreMigrations.migrations.map((migration) => migration.name)).toEqual(['001_jobs.sql', '002_rate_limits.sql']);
  });
});
