import { createSqlAdminTokenStore, createSqlIdempotencyJournal, createSqlVendorStore } from '@tollgate/core/license';
import { describeAdminFoundationConformance, testDatabaseEngines } from '@tollgate/core/testing';
import { openLicenseTestDatabase } from '../license-test-database';

for (const engine of await testDatabaseEngines()) {
  describeAdminFoundationConformance({
    name: `sql/${engine.name}`,
    open: async () => {
      const database = await openLicenseTestDatabase(engine);
      return {
        ...database,
        vendors: createSqlVendorStore(database.sql),
        tokens: createSqlAdminTokenStore(database.sql),
        journal: createSqlIdempotencyJournal(database.sql, { sealKey: new Uint8Array(32).fill(9) }),
      };
    },
  });
}
