export { parseJsonWithUniqueKeys, quoteJsonKey, type UniqueKeyJsonParse } from './duplicate-keys';
