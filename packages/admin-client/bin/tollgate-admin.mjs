#!/usr/bin/env node
// The package's command (named after this file). In a checkout of the repository it runs src/cli.ts,
// bundled on the fly by scripts/dev-build.mjs exactly as `npm start` runs the servers, so it works right
// after `npm ci` and never runs a stale build. In the published package (no sources, no scripts/) it
// runs the tsup build in dist/bin/. npm links node_modules/.bin/<name> here; Node resolves that symlink,
// so the paths below are the package's own.
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const self = fileURLToPath(import.meta.url);
const name = basename(self, '.mjs');
const packageDir = dirname(dirname(self));
const repositoryRoot = dirname(dirname(packageDir));
const source = join(packageDir, 'src', 'cli.ts');
const devBuildScript = join(repositoryRoot, 'scripts', 'dev-build.mjs');
const built = join(packageDir, 'dist', 'bin', `${name}.js`);

if (existsSync(source) && existsSync(devBuildScript)) {
  const { devBuild } = await import(pathToFileURL(devBuildScript).href);
  // One bundle per process, so concurrent commands never load a half-written file; removed on exit.
  const bundle = await devBuild(relative(repositoryRoot, source), `.tollgate/build/${name}-cli-${process.pid}.mjs`);
  process.once('exit', () => rmSync(bundle, { force: true }));
  await import(pathToFileURL(bundle).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  process.stderr.write(`${name}: found neither the sources nor a build in ${packageDir}; run \`npm run build\`.\n`);
  process.exitCode = 1;
}
