import { coreMigrations, createSqlGatewayStores, gatewayMigrations } from '@tollgate/core';
import { describeOrderStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

for (const engine of await testDatabaseEngines()) {
  describeOrderStoreConformance({
    name: `sql/${engine.name}`,
    open: async () => {
      const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
      return { ...database, ...createSqlGatewayStores(database.sql) };
    },
  });
}
