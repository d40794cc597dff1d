// `npm run example -- <name> [args…]`: runs examples/<name>.ts on Node 20 (which cannot run TypeScript)
// by bundling it from the workspace sources with esbuild first, the same way `npm start` runs.
import { existsSync, readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';

const name = (process.argv[2] ?? '').replace(/\.ts$/, '').replace(/^examples\//, '');
const available = readdirSync(new URL('../examples/', import.meta.url)).filter((file) => file.endsWith('.ts')).map((file) => file.slice(0, -3));
if (!name || !existsSync(new URL(`../examples/${name}.ts`, import.meta.url))) {
  process.stderr.write(`usage: npm run example -- <name>\navailable: ${available.join(', ')}\n`);
  process.exit(2);
}
process.argv.splice(2, 1);
const bundle = await devBuild(`examples/${name}.ts`, `.tollgate/build/examples/${name}.mjs`);
await import(pathToFileURL(bundle).href);
