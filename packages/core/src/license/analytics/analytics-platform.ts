/**
 * The closed list of platforms analytics keeps. A machine's platform is `<os>-<arch>` as the client
 * reported it (free text, 32 bytes each), so stored as-is it would let one licensee create as many
 * rollup groups as it likes. The drain maps each half onto the lists below (common aliases folded in,
 * anything else `other`), and the rollup applies the same rule to whatever the events table holds.
 */

/** Operating systems kept by name (lower case); anything else is `other`. */
export const analyticsOperatingSystems = Object.freeze(['windows', 'macos', 'linux', 'android', 'ios', 'ipados', 'chromeos', 'freebsd', 'openbsd', 'netbsd', 'web'] as const);

/** Architectures kept by name (lower case); anything else is `other`. */
export const analyticsArchitectures = Object.freeze(['x64', 'x86', 'arm64', 'arm', 'riscv64', 'ppc64', 's390x', 'wasm32'] as const);

const osAliases: Readonly<Record<string, string>> = { darwin: 'macos', mac: 'macos', osx: 'macos', win32: 'windows', win: 'windows', browser: 'web' };
const archAliases: Readonly<Record<string, string>> = { amd64: 'x64', x86_64: 'x64', ia32: 'x86', i386: 'x86', i686: 'x86', aarch64: 'arm64', armv7: 'arm', armv7l: 'arm', ppc64le: 'ppc64', wasm: 'wasm32' };

function closed(value: string, list: readonly string[], aliases: Readonly<Record<string, string>>): string {
  const lower = value.trim().toLowerCase();
  const named = aliases[lower] ?? lower;
  return list.includes(named) ? named : 'other';
}

/**
 * The platform analytics records for a machine's reported `<os>-<arch>`: both halves mapped onto the
 * closed lists (`other` when unknown), `null` when none was reported.
 *
 * @param platform - The machine's platform column.
 * @returns `<os>-<arch>` from the closed lists, or `null`.
 * @example
 * ```ts
 * import { analyticsPlatformOf } from '@tollgate/core/license';
 * analyticsPlatformOf('Darwin-aarch64'); // 'macos-arm64'
 * analyticsPlatformOf('os123-x64'); // 'other-x64'
 * ```
 */
export function analyticsPlatformOf(platform: string | null): string | null {
  if (platform === null) return null;
  const cut = platform.lastIndexOf('-');
  const os = cut < 0 ? platform : platform.slice(0, cut);
  const arch = cut < 0 ? '' : platform.slice(cut + 1);
  return `${closed(os, analyticsOperatingSystems, osAliases)}-${closed(arch, analyticsArchitectures, archAliases)}`;
}

/** SQL mapping a stored platform column onto the closed list ('' for none, `other-other` for anything unknown). */
export function analyticsPlatformSql(column: string): string {
  const pattern = `^(${[...analyticsOperatingSystems, 'other'].join('|')})-(${[...analyticsArchitectures, 'other'].join('|')})$`;
  return `CASE WHEN ${column} IS NULL THEN '' WHEN ${column} ~ '${pattern}' THEN ${column} ELSE 'other-other' END`;
}
