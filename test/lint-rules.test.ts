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

// Proves the rooms rule of packages/core/src: gateway/ and license/ never import each other.
const crossRoom: Record<string, string> = {
  gateway: [
    "import { createKeyset } from '../license/keyset';",
    "import { licenseKinds } from '../../license';",
    "import { adminErrorCodes } from '../errors/admin';",
    "import { checkNotificationUrl } from '../webhooks/notification-url';",
    'export { createKeyset, licenseKinds, adminErrorCodes, checkNotificationUrl };',
  ].join('\n'),
  license: [
    "import { webhookHost } from '../../gateway/notifications/notification-deliverer';",
    "import { gatewayOpenApiDocument } from '@tollgate/core/gateway';",
    "import { gatewayErrorCodes } from '../../errors/gateway';",
    "import { SchemaRegistry } from '../../openapi/schema-registry';",
    'export { webhookHost, gatewayOpenApiDocument, gatewayErrorCodes, SchemaRegistry };',
  ].join('\n'),
};

async function roomMessages(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parse-error'}: ${message.message}`);
}

describe('core rooms lint', () => {
  it('forbids gateway/ files to import license/ and license/ files to import gateway/, not the shared rooms', async () => {
    const gateway = await roomMessages(crossRoom['gateway'] as string, 'packages/core/src/gateway/example.ts');
    expect(gateway).toHaveLength(2);
    for (const message of gateway) expect(message).toMatch(/^no-restricted-imports: .*gateway\/ never imports license\/: put code both use in a shared room/);
    const license = await roomMessages(crossRoom['license'] as string, 'packages/core/src/license/service/example.ts');
    expect(license).toHaveLength(2);
    for (const message of license) expect(message).toMatch(/^no-restricted-imports: .*license\/ never imports gateway\/: put code both use in a shared room/);
  });

  it('applies to their tests and Node-only files too', async () => {
    expect(await roomMessages(crossRoom['license'] as string, 'packages/core/src/license/service/example.test.ts')).toHaveLength(2);
    expect(await roomMessages(crossRoom['gateway'] as string, 'packages/core/src/gateway/node-example.ts')).toHaveLength(2);
  });

  it('keeps the platform-neutrality rule in both rooms', async () => {
    expect(await ruleIds('packages/core/src/license/example.ts')).toEqual(await ruleIds('packages/core/src/gateway/example.ts'));
    const ids = await ruleIds('packages/core/src/license/example.ts');
    expect(ids.filter((id) => id === 'no-restricted-imports')).toHaveLength(5);
    expect(ids).toContain('no-restricted-globals');
  });
});
