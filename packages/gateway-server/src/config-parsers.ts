import * as v from 'valibot';
import { getAddress, isAddress } from 'viem';
import { ConfigError, createNetworkRegistry, parseGatewaySecret, type GatewayNetwork } from '@tollgate/core';
import type { RateLimitRule } from '@tollgate/core/storage';
import { networkDefinitionSchema } from '@tollgate/core/gateway';

/** One invalid variable, as `ConfigError` lists it. */
export type ConfigProblem = ConfigError['problems'][number];

/** A parsed variable, or why it is invalid. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: ConfigProblem };

// Secrets and URLs that may embed provider keys are never repeated in an error message.
function redacted(value: string): string {
  return `<redacted, ${value.length} characters>`;
}

function problem(variable: string, expected: string, received: string | undefined): Parsed<never> {
  return { ok: false, problem: { variable, expected, received } };
}

/**
 * `GATEWAY_SECRET`: 32 bytes as 64 hex digits or base64. Unset → `undefined` (the server then keeps a
 * generated one in the data dir, outside production).
 */
export function parseSecretVariable(raw: string | undefined): Parsed<Uint8Array | undefined> {
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: parseGatewaySecret(raw) };
  } catch {
    return problem('GATEWAY_SECRET', '32 random bytes as 64 hex digits or as base64 (e.g. `openssl rand -hex 32`)', redacted(raw));
  }
}

/** `GATEWAY_PUBLIC_URL`: an http(s) origin without path, query or fragment; the trailing `/` is dropped. */
export function parsePublicUrlVariable(raw: string | undefined): Parsed<string | undefined> {
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  const expected = 'an http(s) origin such as https://pay.example.com (no path, query or fragment)';
  try {
    const url = new URL(raw);
    const originOnly = (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
    if ((url.protocol === 'https:' || url.protocol === 'http:') && originOnly && !raw.endsWith('//')) return { ok: true, value: url.origin };
  } catch {
    // Reported below.
  }
  return problem('GATEWAY_PUBLIC_URL', expected, raw);
}

/** `GATEWAY_RPC_URLS`: `name=url,name=url` (http or https). */
export function parseRpcUrlsVariable(raw: string | undefined): Parsed<Record<string, string>> {
  if (raw === undefined || raw === '') return { ok: true, value: {} };
  const urls: Record<string, string> = {};
  for (const entry of raw.split(',')) {
    const separator = entry.indexOf('=');
    const name = entry.slice(0, separator).trim();
    const url = entry.slice(separator + 1).trim();
    let protocol = '';
    try {
      protocol = new URL(url).protocol;
    } catch {
      // Reported below.
    }
    if (separator <= 0 || !/^[a-z][a-z0-9-]{0,31}$/.test(name) || (protocol !== 'http:' && protocol !== 'https:') || Object.hasOwn(urls, name)) {
      return problem('GATEWAY_RPC_URLS', 'comma-separated network=http(s)://url pairs, each network once (e.g. base=https://mainnet.base.org)', redacted(raw));
    }
    urls[name] = url;
  }
  return { ok: true, value: urls };
}

/** `GATEWAY_EXTRA_NETWORKS`: a JSON array of `{ name, chainId, usdc: { address, name, version, decimals? } }`. */
export function parseExtraNetworksVariable(raw: string | undefined): Parsed<GatewayNetwork[]> {
  if (raw === undefined || raw === '') return { ok: true, value: [] };
  const expected = 'a JSON array of { "name", "chainId", "usdc": { "address", "name", "version", "decimals"? } }';
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return problem('GATEWAY_EXTRA_NETWORKS', expected, raw);
  }
  const result = v.safeParse(v.array(networkDefinitionSchema), json);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issue ? v.getDotPath(issue) : null;
    return problem('GATEWAY_EXTRA_NETWORKS', `${expected}${path ? ` (at ${path}: ${issue?.message})` : ''}`, raw);
  }
  return { ok: true, value: result.output };
}

/** A rate-limit variable: `<requests>/<window seconds>`, e.g. `10/60`. */
export function parseRateLimitVariable(variable: string, raw: string | undefined, fallback: RateLimitRule): Parsed<RateLimitRule> {
  if (raw === undefined || raw === '') return { ok: true, value: fallback };
  const match = /^(\d{1,7})\/(\d{1,8})$/.exec(raw.trim());
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (match === null || limit < 1 || limit > 1_000_000 || windowSeconds < 1 || windowSeconds > 86_400) {
    return problem(variable, '<requests>/<window seconds> with 1-1000000 requests per 1-86400 seconds, e.g. 10/60', raw);
  }
  return { ok: true, value: { limit, windowMs: windowSeconds * 1000 } };
}

/**
 * Checks the network-dependent variables together: extra networks must not clash with the defaults,
 * and every RPC URL must name a known network.
 */
export function checkNetworkVariables(extra: GatewayNetwork[], localUsdc: string | undefined, rpcUrls: Record<string, string>): ConfigProblem[] {
  let known: Set<string>;
  try {
    known = new Set(createNetworkRegistry({ extra, ...(localUsdc === undefined ? {} : { localUsdc }) }).networks.map((network) => network.name));
  } catch (error) {
    return [{ variable: 'GATEWAY_EXTRA_NETWORKS', expected: `networks with new names and chain ids (${(error as Error).message})`, received: JSON.stringify(extra.map((n) => n.name)) }];
  }
  const unknown = Object.keys(rpcUrls).filter((name) => !known.has(name));
  if (unknown.length === 0) return [];
  return [{ variable: 'GATEWAY_RPC_URLS', expected: `RPC URLs for known networks only (${[...known].join(', ')})`, received: `networks ${unknown.join(', ')}` }];
}

/** `GATEWAY_FACILITATOR_URL`: an http(s) URL (it may embed a provider key, so it is never repeated in errors). */
export function parseFacilitatorUrlVariable(raw: string | undefined): Parsed<string | undefined> {
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hash === '') return { ok: true, value: raw };
  } catch {
    // Reported below.
  }
  return problem('GATEWAY_FACILITATOR_URL', 'the facilitator base URL, http(s) without a fragment (e.g. https://x402.org/facilitator)', redacted(raw));
}

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * `GATEWAY_FACILITATOR_HEADERS`: a JSON object of header names to string values sent with every
 * facilitator call (API keys, bearer tokens). Values are secrets: never repeated in errors or logs.
 */
export function parseFacilitatorHeadersVariable(raw: string | undefined): Parsed<Record<string, string>> {
  if (raw === undefined || raw === '') return { ok: true, value: {} };
  const expected = 'a JSON object of header names to string values, e.g. {"x-api-key":"…"}';
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return problem('GATEWAY_FACILITATOR_HEADERS', expected, redacted(raw));
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return problem('GATEWAY_FACILITATOR_HEADERS', expected, redacted(raw));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(json)) {
    if (!headerName.test(name) || typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      return problem('GATEWAY_FACILITATOR_HEADERS', `${expected} (valid header names, string values without line breaks)`, redacted(raw));
    }
    headers[name.toLowerCase()] = value;
  }
  return { ok: true, value: headers };
}

/**
 * `GATEWAY_PREVIOUS_RECEIPT_SIGNERS`: comma-separated addresses of receipt keys used before a rotation,
 * whose receipts `/verify-receipt` still accepts (checksummed, or all lowercase).
 */
export function parseReceiptSignersVariable(raw: string | undefined): Parsed<`0x${string}`[]> {
  if (raw === undefined || raw === '') return { ok: true, value: [] };
  const signers: `0x${string}`[] = [];
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (!isAddress(entry)) return problem('GATEWAY_PREVIOUS_RECEIPT_SIGNERS', 'comma-separated EVM addresses (0x + 40 hex digits, valid checksum or all lowercase)', raw);
    const address = getAddress(entry);
    if (!signers.includes(address)) signers.push(address);
  }
  return { ok: true, value: signers };
}

/** `GATEWAY_SIGNING_KEY`: a secp256k1 private key as 0x + 64 hex digits (never repeated in errors). */
export function parseSigningKeyVariable(raw: string | undefined): Parsed<`0x${string}` | undefined> {
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  const key = raw.trim();
  if (isSigningKey(key)) return { ok: true, value: key.toLowerCase() as `0x${string}` };
  return problem('GATEWAY_SIGNING_KEY', 'a secp256k1 private key: 0x followed by 64 hex digits, not zero and below the curve order', redacted(raw));
}

const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** True when `key` is 0x + 64 hex digits naming a valid secp256k1 scalar (1 … n − 1). */
export function isSigningKey(key: string): key is `0x${string}` {
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) return false;
  const scalar = BigInt(key);
  return scalar > 0n && scalar < curveOrder;
}

/** The variables the dev stack provides, which conflict with starting it. */
export interface DevChainContext {
  production: boolean;
  facilitatorUrl: string | undefined;
  rpcUrls: Record<string, string>;
  localUsdc: string | undefined;
}

/**
 * Whether the gateway starts the local dev stack (`GATEWAY_DEV_CHAIN`). Unset, it starts when nothing
 * says otherwise: not in production, and none of what it provides is configured (`GATEWAY_FACILITATOR_URL`,
 * a `local` entry in `GATEWAY_RPC_URLS`, `GATEWAY_LOCAL_USDC`), because any of those means the operator
 * runs their own chain or facilitator. `0`/`false` never starts it; `1`/`true` requires it and refuses
 * the combinations above instead of silently overriding them.
 *
 * @param explicit - The parsed `GATEWAY_DEV_CHAIN` (`undefined` when unset).
 * @param raw - Its text, for the error message.
 * @param context - The other variables the decision depends on.
 * @returns Whether to start it, and the conflicts of an explicit `1`.
 * @example
 * ```ts
 * checkDevChainVariable(undefined, undefined, { production: false, facilitatorUrl: undefined, rpcUrls: {}, localUsdc: undefined });
 * // → { devChain: true, problems: [] }
 * ```
 */
export function checkDevChainVariable(
  explicit: boolean | undefined,
  raw: string | undefined,
  context: DevChainContext,
): { devChain: boolean; problems: ConfigProblem[] } {
  const conflicts = [
    ...(context.production ? ['NODE_ENV=production (the dev chain\'s keys are public)'] : []),
    ...(context.facilitatorUrl === undefined ? [] : ['GATEWAY_FACILITATOR_URL']),
    ...(Object.hasOwn(context.rpcUrls, 'local') ? ['a local entry in GATEWAY_RPC_URLS'] : []),
    ...(context.localUsdc === undefined ? [] : ['GATEWAY_LOCAL_USDC']),
  ];
  if (explicit === undefined) return { devChain: conflicts.length === 0, problems: [] };
  if (!explicit || conflicts.length === 0) return { devChain: explicit, problems: [] };
  return {
    devChain: false,
    problems: [{ variable: 'GATEWAY_DEV_CHAIN', expected: `0, or unset, together with ${conflicts.join(', ')} (the dev stack provides the facilitator, the local RPC and its USDC)`, received: raw }],
  };
}
