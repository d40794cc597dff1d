/**
 * The admin client maps the Admin API one to one, derived rather than hand-listed: every method found on
 * a client (walking its groups and sub-groups) is called once with placeholder arguments through a fetch
 * spy that records the (method, path) it sends and answers 404 without reaching any server; the
 * recorded requests must cover every operation of a real license server's Admin route table
 * (`server.context.admin.operations`), and every request must be a route the server has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '@tollgate/admin-client';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';

/** One request the client sent: its method and path under `/v1/admin`. */
interface SentRequest {
  readonly method: string;
  readonly path: string;
  /** The client method that sent it, e.g. `epochs.revoke`. */
  readonly by: string;
}

/** Option names the transport reads: left unset so the placeholder never aborts, confirms or keys a call. */
const transportOptionNames = new Set<PropertyKey>(['signal', 'dryRun', 'idempotencyKey']);

/**
 * A placeholder that stands for any argument: a string (`'placeholder'`) wherever one is converted, any
 * property of an input object (itself, so `query.ids.join(',')` works), callable, iterable as empty, and
 * never a thenable or a set transport option.
 */
function placeholder(): unknown {
  const text = 'placeholder';
  const target = function placeholderTarget() {};
  const proxy: unknown = new Proxy(target, {
    get(_target, property) {
      if (property === 'then' || transportOptionNames.has(property)) return undefined;
      if (property === Symbol.toPrimitive || property === 'toString' || property === 'valueOf' || property === 'toJSON') return () => text;
      if (property === Symbol.iterator) return function* empty() {};
      if (property === Symbol.asyncIterator) return undefined;
      return proxy;
    },
    apply: () => text,
  });
  return proxy;
}

/** The names of an object's members: its own, and its class's methods (a group may be a class instance). */
function memberNames(value: object): string[] {
  const names = new Set(Object.keys(value));
  for (let proto = Object.getPrototypeOf(value); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  return [...names];
}

/** Every method of the client, by dotted name (`catalog.features.list`), found by walking its groups. */
function clientMethods(value: object, prefix = ''): [string, (...args: unknown[]) => unknown][] {
  return memberNames(value).flatMap((name): [string, (...args: unknown[]) => unknown][] => {
    const member: unknown = (value as Record<string, unknown>)[name];
    const dotted = prefix === '' ? name : `${prefix}.${name}`;
    if (typeof member === 'function') return [[dotted, (...args: unknown[]) => (member as (...args: unknown[]) => unknown).apply(value, args)]];
    if (typeof member === 'object' && member !== null) return clientMethods(member, dotted);
    return [];
  });
}

/** Calls one method with placeholders and drives what it returns far enough to send its first request. */
async function callOnce(method: (...args: unknown[]) => unknown): Promise<void> {
  const args = [placeholder(), placeholder(), placeholder(), placeholder()];
  try {
    const result = method(...args);
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
      for await (const item of result as AsyncIterable<unknown>) {
        void item;
        break;
      }
    } else {
      await result;
    }
  } catch {
    // The spy answers 404 (and placeholders are no valid input): only the request sent matters here.
  }
}

/** `/licenses/:licenseId/revoke` → a pattern matching `/licenses/<one segment>/revoke`. */
const templatePattern = (template: string): RegExp => new RegExp(`^${template.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);

const engine = serverEngines[0]!;

describe(`admin client covers every Admin operation [${engine.name}]`, () => {
  let bench: AdminHarness;
  const sent: SentRequest[] = [];
  const methodsWithoutRequest: string[] = [];

  beforeAll(async () => {
    bench = await openAdminHarness(engine);
    let current = '';
    const spy: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      sent.push({ method: (init?.method ?? 'GET').toUpperCase(), path: url.pathname.replace(/^\/v1\/admin/, ''), by: current });
      return new Response(JSON.stringify({ ok: false, error: { code: 'not_found', message: 'recorded by the coverage spy' } }), { status: 404, headers: { 'content-type': 'application/json' } });
    };
    const client = createAdminClient({ baseUrl: 'http://coverage.invalid', token: 'coverage-token', fetch: spy, maxRetries: 0 });
    for (const [name, method] of clientMethods(client)) {
      current = name;
      const before = sent.length;
      await callOnce(method);
      if (sent.length === before) methodsWithoutRequest.push(name);
    }
  }, 90_000);
  afterAll(() => bench?.close());

  it('has a client method for every operation of the server', () => {
    const operations = bench.server.context.admin.operations;
    expect(operations.length).toBeGreaterThan(0);
    const uncovered = operations
      .filter((operation) => !sent.some((request) => request.method === operation.method && templatePattern(operation.path).test(request.path)))
      .map((operation) => `${operation.method} ${operation.path}`);
    expect(uncovered, `Admin operations without a client method (client methods that sent nothing: ${methodsWithoutRequest.join(', ') || 'none'})`).toEqual([]);
  });

  it('sends no request to a route the server does not have', () => {
    const operations = bench.server.context.admin.operations;
    const unknown = sent.filter((request) => !operations.some((operation) => operation.method === request.method && templatePattern(operation.path).test(request.path)));
    expect(unknown.map((request) => `${request.by}: ${request.method} ${request.path}`)).toEqual([]);
  });
});
