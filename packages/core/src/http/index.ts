export type {
  HttpMethod,
  HttpRequest,
  HttpResponse,
  HttpStreamBody,
  BodySpec,
  BodyOf,
  PathParams,
  Handler,
  Middleware,
  Route,
  RouteTable,
} from './types';
export { route, defineRoutes } from './routes';
export { handleHttp, prepareRouteTable, defaultBodyTimeoutMs, type IncomingHttpRequest, type HandleHttpOptions } from './engine';
export type { SerializedResponse } from './response';
export type { BodySource } from './read-stream';
export { toFetchHandler, type FetchHandlerOptions } from './fetch-adapter';
export {
  webDecompressors,
  gunzipWithWebStreams,
  decompressedTooLarge,
  corruptCompressedBody,
  type Decompressor,
  type Decompressors,
} from './decompress';
export { parseQuery } from './request-target';
export { parseMediaType, type MediaType } from './content-headers';
export { cors, type CorsOptions } from './cors';
