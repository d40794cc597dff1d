import { RequestError } from '../errors/request';

/** A request target split into its path (percent-encoding intact) and its raw query string. */
export interface SplitTarget {
  path: string;
  search: string;
}

const absoluteForm = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * Splits a request target (`/ref/abc?x=1`, or the absolute form `http://host/ref/abc?x=1` that proxies
 * send) into path and query string. Anything else (`*`, `ref/abc`, an unparsable URL) is refused.
 *
 * @param target - The request target as received.
 * @returns The path and the query string without its `?`.
 * @throws RequestError `malformed_request` for a target that has no path.
 */
export function splitRequestTarget(target: string): SplitTarget {
  let pathAndQuery = target;
  if (absoluteForm.test(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch (cause) {
      throw new RequestError('malformed_request', 'The request URL is not valid.', { cause });
    }
    pathAndQuery = url.pathname + url.search;
  }
  if (!pathAndQuery.startsWith('/')) throw new RequestError('malformed_request', 'The request target must be a path.');
  const hash = pathAndQuery.indexOf('#');
  if (hash !== -1) pathAndQuery = pathAndQuery.slice(0, hash);
  const question = pathAndQuery.indexOf('?');
  return question === -1
    ? { path: pathAndQuery, search: '' }
    : { path: pathAndQuery.slice(0, question), search: pathAndQuery.slice(question + 1) };
}

/**
 * Percent-decodes one path segment or query component.
 *
 * @param text - The encoded text.
 * @param plusIsSpace - Decode `+` as a space (query strings, per the URL standard's form encoding).
 * @returns The decoded text.
 * @throws RequestError `malformed_request` for an invalid escape or an escape that is not UTF-8.
 */
export function percentDecode(text: string, plusIsSpace = false): string {
  const spaced = plusIsSpace ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch (cause) {
    throw new RequestError('malformed_request', 'The request URL has an invalid percent-encoding.', { cause });
  }
}

/**
 * Parses a query string into one decoded value per key. A key given twice is ambiguous (which one
 * would a handler see, and which one would a cache or a proxy see?) so it is refused rather than
 * resolved by a first-wins or last-wins rule. A key without `=` has the value `''`; empty pieces
 * (`a=1&&b=2`) are skipped.
 *
 * @param search - The query string without its `?`.
 * @returns A prototype-free record, so keys such as `__proto__` are plain data.
 * @throws RequestError `malformed_request` for a duplicate key or an invalid percent-encoding.
 * @example
 * ```ts
 * import { parseQuery } from '@tollgate/core/http';
 * parseQuery('ref=abc&amount=10'); // { ref: 'abc', amount: '10' }
 * ```
 */
export function parseQuery(search: string): Record<string, string> {
  const query = Object.create(null) as Record<string, string>;
  if (search === '') return query;
  for (const piece of search.split('&')) {
    if (piece === '') continue;
    const equals = piece.indexOf('=');
    const key = percentDecode(equals === -1 ? piece : piece.slice(0, equals), true);
    const value = equals === -1 ? '' : percentDecode(piece.slice(equals + 1), true);
    if (Object.hasOwn(query, key)) {
      // The name is the client's: bounded before it is echoed.
      const name = key.length > 64 ? `${key.slice(0, 64)}…` : key;
      throw new RequestError('malformed_request', `The query parameter "${name}" is given more than once.`, {
        details: { parameter: name },
      });
    }
    query[key] = value;
  }
  return query;
}
