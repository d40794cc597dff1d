import { defineConfig, type Options } from 'tsup';
import { packages, outputName } from './scripts/workspace.mjs';

// One config for the whole workspace: every package builds its entry map (see scripts/workspace.mjs)
// to ESM + CJS + .d.ts.

export default defineConfig(
  packages.map((pkg): Options => {
    const entry: Record<string, string> = {};
    for (const [subpath, source] of Object.entries(pkg.entries)) entry[outputName(subpath)] = `${pkg.dir}/${source}`;
    for (const [bin, source] of Object.entries(pkg.bins ?? {})) entry[`bin/${bin}`] = `${pkg.dir}/${source}`;
    return {
      name: pkg.name,
      entry,
      outDir: `${pkg.dir}/dist`,
      format: ['esm', 'cjs'],
      dts: { compilerOptions: { composite: false } },
      tsconfig: 'tsconfig.build.json',
      platform: pkg.platform,
      target: 'node20',
      sourcemap: true,
      clean: true,
      splitting: true,
      treeshake: true,
      skipNodeModulesBundle: true,
      external: [/^@tollgate\//],
      // tsup bundles whatever a tsconfig `paths` entry resolves before it looks at `external` (the
      // workspace maps @tollgate/* to sources), so core would be copied into every package. Resolving
      // @tollgate/* as external first keeps one core, imported as the declared dependency.
      esbuildPlugins: [{ name: 'tollgate-external', setup: (build) => void build.onResolve({ filter: /^@tollgate\// }, (args) => ({ path: args.path, external: true })) }],
      loader: { '.sql': 'text' },
      silent: true,
    };
  }),
);
