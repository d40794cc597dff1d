import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binsFor, exportsFor } from '../scripts/write-package-exports.mjs';
import { packages } from '../scripts/workspace.mjs';

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const tsconfigPaths: Record<string, string[]> = readJson('tsconfig.json').compilerOptions.paths;

describe.each(packages)('$name', (pkg) => {
  const manifest = readJson(join(pkg.dir, 'package.json'));

  it('publishes exactly its build entry map', () => {
    expect(manifest.exports).toEqual(exportsFor(pkg));
    expect(manifest.bin).toEqual(binsFor(pkg));
    expect(manifest.sideEffects).toBe(false);
  });

  it('has a source file for every entry and a typecheck path for every subpath', () => {
    for (const [subpath, source] of Object.entries(pkg.entries)) {
      expect(existsSync(join(pkg.dir, source)), `${pkg.name} ${subpath} → ${source}`).toBe(true);
      const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
      expect(tsconfigPaths[specifier]).toEqual([`${pkg.dir}/${source}`]);
    }
    for (const source of Object.values(pkg.bins ?? {})) expect(existsSync(join(pkg.dir, source))).toBe(true);
  });
});

describe('changesets', () => {
  it('versions the five packages as one fixed group and ignores examples', () => {
    const config = readJson('.changeset/config.json');
    expect(config.fixed).toEqual([packages.map((pkg) => pkg.name)]);
    expect(config.ignore).toEqual(['@tollgate/examples']);
  });
});
