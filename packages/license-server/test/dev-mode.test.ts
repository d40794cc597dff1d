import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode, listEpochs } from '@tollgate/core';
import { createKeysetFetcher } from '@tollgate/client-sdk';
import { openServerSandbox, type ServerSandbox } from './helpers';

describe('dev mode (npm start)', () => {
  let sandbox: ServerSandbox;
  beforeAll(async () => {
    sandbox = await openServerSandbox({ name: 'pglite' });
  });
  afterAll(() => sandbox.cleanup());

  it('creates a dev root, master key and epoch on first start, prints the root, and reuses them later', async () => {
    const printed: string[] = [];
    const first = await sandbox.start({}, { print: (text) => printed.push(text) });
    const rootFile = join(sandbox.dataDir, 'license', 'dev-root.key');
    const masterFile = join(sandbox.dataDir, 'license', 'master.key');
    expect(statSync(rootFile).mode & 0o777).toBe(0o600);
    expect(statSync(masterFile).mode & 0o777).toBe(0o600);
    const rootHex = hexEncode(first.context.devTrust!.rootPublicKey);
    expect(JSON.parse(readFileSync(rootFile, 'utf8')).public_key).toBe(rootHex);
    expect(printed.join('\n')).toMatch(new RegExp(`created .*\\n.*LICENSE_ROOT_PUBLIC_KEY=${rootHex}\\n.*new dev signing epoch [0-9a-f]{16} \\(90 days\\)`));
    expect(printed.join('\n')).not.toContain(readFileSync(masterFile, 'utf8').trim());
    const keyset = await createKeysetFetcher({ baseUrl: first.url, pinnedRoots: [rootHex] }).get();
    expect(keyset.epochs.size).toBe(1);
    const epochsBefore = await listEpochs(first.database.sql);
    await first.close();

    const reprinted: string[] = [];
    const second = await sandbox.start({}, { print: (text) => reprinted.push(text) });
    expect(hexEncode(second.context.devTrust!.rootPublicKey)).toBe(rootHex);
    expect(second.context.devTrust!.createdEpochId).toBeUndefined();
    expect(reprinted.join('\n')).toMatch(/reused/);
    expect((await listEpochs(second.database.sql)).map((epoch) => epoch.epochIdHex)).toEqual(epochsBefore.map((epoch) => epoch.epochIdHex));
    expect((await createKeysetFetcher({ baseUrl: second.url, pinnedRoots: [rootHex] }).get()).epochs.size).toBe(1);
  });
});
