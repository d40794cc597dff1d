import { coreMigrations } from '@tollgate/core';
import { createSqlJobQueue } from '@tollgate/core/storage';
import { describeJobQueueConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

for (const engine of await testDatabaseEngines()) {
  describeJobQueueConformance({
    name: engine.name,
    open: async () => {
      const database = await openTestDatabase({ engine, migrations: [coreMigrations] });
      return { ...database, createQueue: (options) => createSqlJobQueue(database.sql, options) };
    },
  });
}
