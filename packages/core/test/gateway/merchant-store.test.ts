import { coreMigrations, gatewayMigrations } from '@tollgate/core';
import { createSqlMerchantStore } from '@tollgate/core/gateway';
import { describeMerchantStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';

for (const engine of await testDatabaseEngines()) {
  describeMerchantStoreConformance({
    name: `sql/${engine.name}`,
    open: async () => {
      const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
      return { ...database, merchants: createSqlMerchantStore(database.sql) };
    },
  });
}
