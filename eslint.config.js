import tseslint from 'typescript-eslint';

// Core must run anywhere (browsers, workers, Deno, Bun): no Node built-ins, no Express, no pg and no
// Buffer, except in files whose name starts with `node-` (or that live under src/node/), which are only
// reachable from the Node-only subpaths `/node`, `/pg` and `/testing` (whose entry files are listed here
// too). Platform-neutral files may not import Node-only ones either.
const nodeOnlyFiles = [
  'packages/core/src/**/node-*.ts',
  'packages/core/src/node/**/*.ts',
  'packages/core/src/storage/pg/index.ts',
  'packages/core/src/testing/index.ts',
];

// What platform-neutral core files may not import (see above).
const platformNeutralImports = {
  // Bare built-in names (without `node:`); exact names only, so `./crypto` stays allowed.
  paths: ['buffer', 'fs', 'path', 'crypto', 'zlib', 'http', 'https', 'os', 'stream', 'child_process', 'net', 'url', 'util', 'worker_threads'].map(
    (name) => ({ name, message: 'Node built-in: use a node-*.ts file.' }),
  ),
  patterns: [
    { group: ['node:*'], message: 'core is platform-neutral: put Node-only code in a node-*.ts file exported from a Node subpath.' },
    { group: ['express', 'express/*'], message: 'core never imports express: adapters live in node-*.ts files.' },
    { group: ['pg', 'pg/*', 'pg-*'], message: 'core never imports pg: the driver lives behind @tollgate/core/pg.' },
    { group: ['**/node-*', '**/node/*'], message: 'platform-neutral code cannot import Node-only files.' },
  ],
};

// The rooms of core: gateway/ (the payment gateway) and license/ (the license service) sit side by side
// on the shared rooms (openapi/, webhooks/, http/, errors/, …) and never import each other, tests and
// Node-only files included. `errors/gateway` is the errors room's file, not the gateway's.
const roomImports = {
  gateway: {
    group: ['**/license', '**/license/**'],
    message: 'gateway/ never imports license/: put code both use in a shared room of core (src/openapi, src/webhooks, …).',
  },
  license: {
    group: ['**/gateway', '**/gateway/**', '!**/errors/gateway'],
    message: 'license/ never imports gateway/: put code both use in a shared room of core (src/openapi, src/webhooks, …).',
  },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.tollgate/**', 'coverage/**', '**/*.d.ts', 'contracts/artifacts/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-debugger': 'error',
      'no-var': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'smart'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: [...nodeOnlyFiles, 'packages/core/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', platformNeutralImports],
      'no-restricted-globals': [
        'error',
        { name: 'Buffer', message: 'Use Uint8Array in core; Buffer is Node-only.' },
        { name: 'process', message: 'core takes configuration as parameters; process is Node-only.' },
        { name: 'require', message: 'ESM only.' },
        { name: '__dirname', message: 'Node-only.' },
      ],
    },
  },
  // ESLint does not merge a rule's options across blocks (the last matching block wins), so a room's
  // platform-neutral files get the platform rules and the room rule together.
  ...Object.entries(roomImports).flatMap(([room, pattern]) => [
    {
      files: [`packages/core/src/${room}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: [pattern] }] },
    },
    {
      files: [`packages/core/src/${room}/**/*.ts`],
      ignores: [...nodeOnlyFiles, 'packages/core/src/**/*.test.ts'],
      rules: { 'no-restricted-imports': ['error', { paths: platformNeutralImports.paths, patterns: [...platformNeutralImports.patterns, pattern] }] },
    },
  ]),
);
