export { catalogOperations, type CatalogOperationsDeps } from './catalog-operations';
