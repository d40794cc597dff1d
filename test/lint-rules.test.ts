import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// Proves the platform-neutrality rule of packages/core/src actually fires (and where it does not).
const eslint = new ESLint();
const offending = [
  "import { readFileSync } from 'fs';",
  "import { gzipSync } from 'node:zlib';",
  "import pg from 'pg';",
  "import express from 'express';",
  "import { createNodeEd25519Signer } from '../crypto/node-ed25519-signer';",
  "export const bytes = Buffer.from('x');",
  'export { readFileSync, gzipSync, pg, express, createNodeEd25519Signer };',
].join('\n');

async function ruleIds(filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(offending, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId ?? 'parse-error');
}

describe('core purity lint', () => {
  it('forbids node:*, built-ins, pg, express, Node-only files and Buffer in platform-neutral core files', async () => {
    const ids = await ruleIds('packages/core/src/gateway/example.ts');
    expect(ids.filter((id) => id === 'no-restricted-imports')).toHaveLength(5);
    expect(ids).toContain('no-restricted-globals');
  });

  it('allows them in files named node-*.ts and under src/node/', async () => {
    expect(await ruleIds('packages/core/src/storage/node-example.ts')).toEqual([]);
    expect(await ruleIds('packages/core/src/node/example.ts')).toEqual([]);
  });

  it('does not apply to the servers', async () => {
    expect(await ruleIds('packages/gateway-server/src/example.ts')).toEqual([]);
  });
});
