import { coreMigrations } from '@tollgate/core';
import { createMemoryRateLimiter, createSqlRateLimiter } from '@tollgate/core/storage';
import { describeRateLimiterConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

describeRateLimiterConformance({ name: 'memory', open: async () => ({ createLimiter: createMemoryRateLimiter }) });

for (const engine of await testDatabaseEngines()) {
  describeRateLimiterConformance({
    name: `sql/${engine.name}`,
    open: async () => {
      const database = await openTestDatabase({ engine, migrations: [coreMigrations] });
      return { ...database, createLimiter: ({ clock }) => createSqlRateLimiter(database.sql, { clock }) };
    },
  });
}
