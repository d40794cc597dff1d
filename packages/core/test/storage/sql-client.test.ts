import { describeSqlClientConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

for (const engine of await testDatabaseEngines()) {
  describeSqlClientConformance({ name: engine.name, open: () => openTestDatabase({ engine }) });
}
