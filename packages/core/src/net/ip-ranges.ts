/**
 * What kind of address an IP literal is. Everything but `public` is refused as a webhook target:
 * delivering to it would let a merchant make the gateway call into its own network (SSRF).
 */
export type IpAddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link_local'
  | 'multicast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

/** An IP literal with its version and kind. */
export interface IpAddressClass {
  readonly version: 4 | 6;
  readonly kind: IpAddressKind;
}

// Declared before the range tables below, which parse their bases at module load.
const ipv4Pattern = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const hexGroup = /^[0-9a-fA-F]{1,4}$/;

interface Range {
  readonly base: bigint;
  readonly bits: number;
  readonly kind: IpAddressKind | 'embedded_v4';
  /** For `embedded_v4`: the bit offset (from the least significant bit) of the embedded IPv4 address. */
  readonly shift?: number;
}

function v4Range(text: string, bits: number, kind: IpAddressKind): Range {
  return { base: parseIpv4(text) as bigint, bits, kind };
}

function v6Range(text: string, bits: number, kind: Range['kind'], shift?: number): Range {
  return { base: parseIpv6(text) as bigint, bits, kind, ...(shift === undefined ? {} : { shift }) };
}

// IANA IPv4 special-purpose registry (RFC 6890 and successors), minus the few globally reachable
// anycast entries that a webhook never points at anyway.
const ipv4Ranges: readonly Range[] = [
  v4Range('0.0.0.0', 8, 'unspecified'),
  v4Range('10.0.0.0', 8, 'private'),
  v4Range('100.64.0.0', 10, 'shared'),
  v4Range('127.0.0.0', 8, 'loopback'),
  v4Range('169.254.0.0', 16, 'link_local'),
  v4Range('172.16.0.0', 12, 'private'),
  v4Range('192.0.0.0', 24, 'reserved'),
  v4Range('192.0.2.0', 24, 'documentation'),
  v4Range('192.88.99.0', 24, 'reserved'),
  v4Range('192.168.0.0', 16, 'private'),
  v4Range('198.18.0.0', 15, 'benchmarking'),
  v4Range('198.51.100.0', 24, 'documentation'),
  v4Range('203.0.113.0', 24, 'documentation'),
  v4Range('224.0.0.0', 4, 'multicast'),
  v4Range('240.0.0.0', 4, 'reserved'),
];

// IPv6: ranges that carry an IPv4 address are judged by that address (an IPv4-mapped loopback is a
// loopback). Order matters: the first match wins, so the specific ranges come before 2000::/3.
const ipv6Ranges: readonly Range[] = [
  v6Range('::', 128, 'unspecified'),
  v6Range('::1', 128, 'loopback'),
  v6Range('::ffff:0:0', 96, 'embedded_v4', 0),
  v6Range('64:ff9b::', 96, 'embedded_v4', 0),
  v6Range('64:ff9b:1::', 48, 'private'),
  v6Range('::', 96, 'reserved'),
  v6Range('100::', 64, 'reserved'),
  v6Range('2001:db8::', 32, 'documentation'),
  v6Range('2001::', 23, 'reserved'),
  v6Range('2002::', 16, 'embedded_v4', 80),
  v6Range('3fff::', 20, 'documentation'),
  v6Range('fc00::', 7, 'private'),
  v6Range('fe80::', 10, 'link_local'),
  v6Range('fec0::', 10, 'reserved'),
  v6Range('ff00::', 8, 'multicast'),
];

// Only 2000::/3 is allocated for global unicast; anything outside it is not a public address.
const globalUnicast = v6Range('2000::', 3, 'public');

function inRange(value: bigint, width: number, range: Range): boolean {
  const shift = BigInt(width - range.bits);
  return value >> shift === range.base >> shift;
}

function classifyV4(value: bigint): IpAddressKind {
  for (const range of ipv4Ranges) if (inRange(value, 32, range)) return range.kind as IpAddressKind;
  return 'public';
}

function classifyV6(value: bigint): IpAddressKind {
  for (const range of ipv6Ranges) {
    if (!inRange(value, 128, range)) continue;
    if (range.kind === 'embedded_v4') return classifyV4((value >> BigInt(range.shift ?? 0)) & 0xffff_ffffn);
    return range.kind;
  }
  return inRange(value, 128, globalUnicast) ? 'public' : 'reserved';
}

/**
 * Parses a dotted-decimal IPv4 address (four decimal parts 0–255, no leading zeros).
 *
 * @param text - The address.
 * @returns The address as a 32-bit bigint, or `undefined` when `text` is not one.
 * @example
 * ```ts
 * import { parseIpv4 } from '@tollgate/core/gateway';
 * parseIpv4('10.0.0.1'); // 167772161n
 * ```
 */
export function parseIpv4(text: string): bigint | undefined {
  if (!ipv4Pattern.test(text)) return undefined;
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/**
 * Parses an IPv6 address in RFC 4291 text form: eight hex groups, one `::` at most, optionally ending
 * in a dotted IPv4 address. No brackets, no zone id.
 *
 * @param text - The address.
 * @returns The address as a 128-bit bigint, or `undefined` when `text` is not one.
 * @example
 * ```ts
 * import { parseIpv6 } from '@tollgate/core/gateway';
 * parseIpv6('::ffff:127.0.0.1') === parseIpv6('::ffff:7f00:1'); // true
 * ```
 */
export function parseIpv6(text: string): bigint | undefined {
  if (text.length === 0 || text.length > 45) return undefined;
  let body = text;
  let tailV4: bigint | undefined;
  if (text.includes('.')) {
    const lastColon = text.lastIndexOf(':');
    if (lastColon < 0) return undefined;
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    body = text.slice(0, lastColon + 1);
    // "::ffff:1.2.3.4" → "::ffff"; "::1.2.3.4" keeps its "::".
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const wanted = tailV4 === undefined ? 8 : 6;
  const split = (part: string) => (part === '' ? [] : part.split(':'));
  const halves = body.split('::');
  let groups: string[];
  if (halves.length === 2) {
    const left = split(halves[0] as string);
    const right = split(halves[1] as string);
    const missing = wanted - left.length - right.length;
    if (missing < 1) return undefined;
    groups = [...left, ...Array<string>(missing).fill('0'), ...right];
  } else if (halves.length === 1) {
    groups = split(body);
  } else {
    return undefined;
  }
  if (groups.length !== wanted || !groups.every((group) => hexGroup.test(group))) return undefined;
  let value = groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
  if (tailV4 !== undefined) value = (value << 32n) | tailV4;
  return value;
}

/**
 * Classifies an IP literal against the IANA special-purpose registries: private (RFC 1918, ULA
 * `fc00::/7`), loopback, link-local, shared/CGNAT (`100.64.0.0/10`), multicast, documentation,
 * benchmarking and reserved ranges, and unallocated IPv6 space. IPv4-mapped (`::ffff:0:0/96`), NAT64
 * (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses are judged by the IPv4 address they carry.
 *
 * @param text - An IPv4 address, or an IPv6 address with or without brackets.
 * @returns Its version and kind, or `undefined` when `text` is not an IP literal (a host name).
 * @example
 * ```ts
 * import { classifyIpAddress } from '@tollgate/core/gateway';
 * classifyIpAddress('[::ffff:10.0.0.1]'); // { version: 6, kind: 'private' }
 * classifyIpAddress('8.8.8.8'); // { version: 4, kind: 'public' }
 * ```
 */
export function classifyIpAddress(text: string): IpAddressClass | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { version: 4, kind: classifyV4(v4) };
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v6 = parseIpv6(bare);
  if (v6 !== undefined) return { version: 6, kind: classifyV6(v6) };
  return undefined;
}
