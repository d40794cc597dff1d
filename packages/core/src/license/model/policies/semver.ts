/**
 * SemVer 2.0.0 (https://semver.org) strings: `MAJOR.MINOR.PATCH`, optional `-pre.release` and
 * `+build`, no leading zeros in numeric parts. The official regular expression from semver.org.
 */
export const semVerPattern =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Longest version string accepted (the spec sets no limit; 128 is far beyond any real version). */
export const maxSemVerLength = 128;

/**
 * Whether `value` is a SemVer 2.0.0 version of at most 128 characters.
 *
 * @param value - Anything.
 * @returns True for a version string.
 * @example
 * ```ts
 * import { isSemVer } from '@tollgate/core/license';
 * isSemVer('2.1.0-rc.1'); // true
 * isSemVer('v2.1'); // false
 * ```
 */
export function isSemVer(value: unknown): value is string {
  return typeof value === 'string' && value.length <= maxSemVerLength && semVerPattern.test(value);
}

// Numeric parts compare as numbers of any size: BigInt avoids precision loss past 2^53.
function compareNumeric(a: string, b: string): number {
  const left = BigInt(a);
  const right = BigInt(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = /^\d+$/.test(a);
  const bNumeric = /^\d+$/.test(b);
  if (aNumeric && bNumeric) return compareNumeric(a, b);
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares two versions by SemVer precedence (§11): numeric core parts, then a pre-release sorts
 * before its release, pre-release identifiers compare numerically or in ASCII order, and build
 * metadata is ignored (so `1.0.0+a` and `1.0.0+b` are equal).
 *
 * @param a - A SemVer version.
 * @param b - Another.
 * @returns Negative when `a` precedes `b`, 0 when equal in precedence, positive otherwise.
 * @throws TypeError when either is not a SemVer version.
 * @example
 * ```ts
 * import { compareSemVer } from '@tollgate/core/license';
 * compareSemVer('1.0.0-rc.1', '1.0.0') < 0; // true
 * compareSemVer('1.10.0', '1.9.9') > 0; // true
 * ```
 */
export function compareSemVer(a: string, b: string): number {
  const left = semVerPattern.exec(a);
  const right = semVerPattern.exec(b);
  if (left === null || right === null) throw new TypeError(`Not a SemVer version: ${left === null ? a : b}`);
  for (let part = 1; part <= 3; part++) {
    const order = compareNumeric(left[part] as string, right[part] as string);
    if (order !== 0) return order;
  }
  const leftPre = left[4];
  const rightPre = right[4];
  if (leftPre === undefined || rightPre === undefined) return leftPre === rightPre ? 0 : leftPre === undefined ? 1 : -1;
  const leftIds = leftPre.split('.');
  const rightIds = rightPre.split('.');
  for (let index = 0; index < Math.min(leftIds.length, rightIds.length); index++) {
    const order = compareIdentifiers(leftIds[index] as string, rightIds[index] as string);
    if (order !== 0) return order;
  }
  return Math.sign(leftIds.length - rightIds.length);
}
