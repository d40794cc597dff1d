// What the HTTP fuzz tests share: sending a generated request exactly as generated, and the one rule every
// answer must keep (never a 5xx; every refusal the spec's JSON error envelope).
import { expect } from 'vitest';
import type { JsonResponse } from './gateway';

/** A generated request, sent as is. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly apiKey?: string;
}

/**
 * Sends a raw request (`call` would refuse some of these bodies as JSON, and `fetch` some URLs as built);
 * the answer's body is its JSON when it is JSON, else its text.
 */
export async function sendRaw(base: string, request: RawRequest): Promise<JsonResponse<unknown>> {
  const headers: Record<string, string> = {};
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  if (request.apiKey !== undefined) headers['authorization'] = `Bearer ${request.apiKey}`;
  const response = await fetch(`${base}${request.path}`, { method: request.method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Asserts no 5xx, and the spec's JSON error envelope for every refusal; `label` names the seed and case so a failure replays. */
export function expectWellFormed(response: JsonResponse<unknown>, label: string): void {
  expect(response.status, `${label} → ${response.status} ${response.text.slice(0, 300)}`).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers.get('content-type'), label).toBe('application/json; charset=utf-8');
    expect(response.body, label).toEqual({ x402Version: 2, error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) } });
  }
}
