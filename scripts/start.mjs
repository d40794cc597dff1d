// `npm start`: bundles scripts/start-servers.ts from the workspace sources (fast, no declaration build)
// and runs it in this process.
import { pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';

const bundle = await devBuild('scripts/start-servers.ts', '.tollgate/build/start-servers.mjs');
await import(pathToFileURL(bundle).href);
