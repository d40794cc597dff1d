import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { entrySpecifiers, readmeExample } from '../scripts/pack-check.mjs';
import { packages } from '../scripts/workspace.mjs';

// What `node scripts/pack-check.mjs` (CI step "pack-check") relies on, checked without packing: each
// package ships a README whose example runs unchanged as an .mjs file, and has a first-release changeset.

const changesets = readdirSync('.changeset')
  .filter((file) => file.endsWith('.md') && file !== 'README.md')
  .map((file) => readFileSync(join('.changeset', file), 'utf8'));

describe.each(packages)('$name', (pkg) => {
  const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8'));
  const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
  const example = readmeExample(readme);

  it('publishes its README', () => {
    expect(manifest.files).toContain('README.md');
    expect(readme.startsWith(`# ${pkg.name}\n`)).toBe(true);
    expect(readme).toMatch(/npm install /);
  });

  it('has a runnable README example of about ten lines in plain JavaScript', async () => {
    expect(example, 'a fenced block after <!-- pack-check: run -->').toBeDefined();
    const lines = example!.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(25);
    // esbuild's `js` loader refuses TypeScript syntax: the block must run as an .mjs file unchanged.
    await expect(transform(example!, { loader: 'js', format: 'esm', target: 'node20' })).resolves.toBeDefined();
  });

  it('imports only its own entries and Node built-ins in the example', () => {
    const own = new Set(entrySpecifiers(pkg));
    const imported = [...example!.matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
    expect(imported.length).toBeGreaterThan(0);
    for (const specifier of imported) expect(own.has(specifier) || specifier.startsWith('node:'), specifier).toBe(true);
    expect(imported.some((specifier) => own.has(specifier))).toBe(true);
  });

  it('has a changeset describing its first release', () => {
    const first = changesets.filter((text) => text.includes(`"${pkg.name}": minor`) && /First public release/.test(text));
    expect(first).toHaveLength(1);
  });
});

describe('readmeExample', () => {
  it('takes the fenced block right after the marker, and nothing without one', () => {
    const text = '```ts\nskipped()\n```\n<!-- pack-check: run -->\n```ts\nrun();\n```\n';
    expect(readmeExample(text)).toBe('run();');
    expect(readmeExample('```ts\nrun();\n```\n')).toBeUndefined();
  });
});
