import { describe, expect, it } from 'vitest';
import { createPgClient } from '@tollgate/core/pg';

describe('createPgClient', () => {
  it('refuses schema names that are not plain lowercase identifiers', () => {
    for (const schema of ['Mixed', 'has space', 'semi;colon', '1starts_with_digit', 'x'.repeat(64), '']) {
      expect(() => createPgClient({ connectionString: 'postgres://localhost/unused', schema }), schema).toThrow(TypeError);
    }
  });
});
