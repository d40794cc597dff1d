import { coreMigrations, createSqlGatewayStore, gatewayMigrations } from '@tollgate/core';
import { describeGatewayStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

for (const engine of await testDatabaseEngines()) {
  describeGatewayStoreConformance({
    name: `sql/${engine.name}`,
    open: async () => {
      const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
      return { ...database, store: createSqlGatewayStore(database.sql) };
    },
  });
}
