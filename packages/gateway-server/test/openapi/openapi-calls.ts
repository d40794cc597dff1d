// Requests to a running gateway whose request and answer are both checked against the OpenAPI document
// (shared by the response tests of the default configuration and of order mode).
import { expect } from 'vitest';
import { call, type CallOptions, type JsonResponse } from '../helpers/gateway';
import type { DocumentValidator, SeenResponse } from './openapi-checks';

/** Options of a documented call: those of `call`, the query, and whether the document must refuse the request. */
export type DocumentedOptions = CallOptions & { query?: Record<string, string>; refusedByDocument?: boolean };

/** Sends a request and checks it and its answer against the document (see {@link documentedCaller}). */
export type DocumentedCall = <Body = Record<string, unknown>>(method: string, routePath: string, path: string, options?: DocumentedOptions) => Promise<JsonResponse<Body>>;

/**
 * A caller of the gateway at `baseUrl` that checks each request against the document's request schemas
 * (unless it is meant to be refused: then the document must refuse it too) and each answer against the
 * operation's documented status, body and headers.
 */
export function documentedCaller(baseUrl: string, validator: DocumentValidator): DocumentedCall {
  return async <Body = Record<string, unknown>>(method: string, routePath: string, path: string, options: DocumentedOptions = {}) => {
    const search = options.query === undefined ? '' : `?${new URLSearchParams(options.query).toString()}`;
    const response = await call<Body>(baseUrl, method, `${path}${search}`, options);
    const requestProblems = validator.request(method, routePath, { ...(options.query === undefined ? {} : { query: options.query }), ...(options.json === undefined ? {} : { body: options.json }) });
    if (options.refusedByDocument === true) expect(requestProblems, `${method} ${path}: the document accepts a request the gateway refuses`).not.toEqual([]);
    else expect(requestProblems, `${method} ${path} request`).toEqual([]);
    expect(validator.response(method, routePath, response), `${method} ${path} → ${response.status}: ${response.text.slice(0, 400)}`).toEqual([]);
    return response;
  };
}

/** A GET whose answer is not JSON (the pay page, its files), as the validator reads answers. */
export async function fetchText(baseUrl: string, path: string): Promise<SeenResponse> {
  const response = await fetch(`${baseUrl}${path}`);
  return { status: response.status, headers: response.headers, text: await response.text() };
}
