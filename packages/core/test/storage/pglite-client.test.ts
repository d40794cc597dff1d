import { describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { createPgliteClient } from '@tollgate/core/pglite';

describe('createPgliteClient', () => {
  it('refuses both a data directory and an instance', async () => {
    await expect(createPgliteClient({ dataDir: '/tmp/unused', db: {} as PGlite })).rejects.toThrow(TypeError);
  });
});
