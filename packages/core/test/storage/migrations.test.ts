import { describeMigrationRunnerConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

for (const engine of await testDatabaseEngines()) {
  describeMigrationRunnerConformance({ name: engine.name, open: () => openTestDatabase({ engine }) });
}
