import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '@tollgate/core';
import type { EnvRecord } from '@tollgate/core/config';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeEpochCertificateRequest } from '@tollgate/core/license';
import { verifyKeyset } from '@tollgate/client-sdk';
import { runLicenseCli } from '@tollgate/license-server';
import { bodyBytes, openServerSandbox, protoHeaders, serverEngines, type ServerSandbox } from './helpers';

interface CliRun {
  status: number | undefined;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: EnvRecord): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const status = await runLicenseCli(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { status, stdout, stderr };
}

const mode = (path: string) => statSync(path).mode & 0o777;

for (const engine of serverEngines) {
  describe(`key ceremony with tollgate-license [${engine.name}]`, () => {
    let sandbox: ServerSandbox;
    let work: string;
    let env: EnvRecord;
    let rootPublicKeyHex: string;
    const masterKeyHex = hexEncode(randomBytes(32));

    beforeAll(async () => {
      sandbox = await openServerSandbox(engine);
      work = mkdtempSync(join(tmpdir(), 'tollgate-ceremony-'));
    });
    afterAll(async () => {
      await sandbox.cleanup();
      rmSync(work, { recursive: true, force: true });
    });

    it('root create writes an owner-only key file, prints the public key, and never overwrites it', async () => {
      const rootFile = join(work, 'root.key');
      const created = await cli(['root', 'create', '--out', rootFile], {});
      expect(created.status).toBe(0);
      rootPublicKeyHex = /root public key: ([0-9a-f]{64})/.exec(created.stdout)?.[1] as string;
      expect(rootPublicKeyHex).toMatch(/^[0-9a-f]{64}$/);
      expect(mode(rootFile)).toBe(0o600);
      const before = readFileSync(rootFile, 'utf8');
      expect(before).toContain(rootPublicKeyHex);
      expect(created.stdout).not.toContain(JSON.parse(before).private_key);

      const again = await cli(['root', 'create', '--out', rootFile], {});
      expect(again.status).toBe(1);
      expect(again.stderr).toMatch(/already exists/);
      expect(readFileSync(rootFile, 'utf8')).toBe(before);
      env = { ...sandbox.env, LICENSE_MASTER_KEY: masterKeyHex, LICENSE_ROOT_PUBLIC_KEYS: rootPublicKeyHex };
    });

    it('epoch create, root sign and epoch load activate an epoch that the server then publishes', async () => {
      const requestFile = join(work, 'request.hex');
      const created = await cli(['epoch', 'create', '--product', 'acme-editor', '--days', '30', '--out', requestFile], env);
      expect(created.status, created.stderr).toBe(0);
      expect(mode(requestFile)).toBe(0o600);
      const request = decodeEpochCertificateRequest(hexDecode(readFileSync(requestFile, 'utf8').trim()));
      expect(request.productScope).toBe('acme-editor');
      expect(request.notAfter - request.notBefore).toBe(30 * 86_400);
      expect(created.stderr).toContain(hexEncode(request.epochId));

      const certificateFile = join(work, 'certificate.hex');
      const signed = await cli(['root', 'sign', '--root', join(work, 'root.key'), '--request', requestFile, '--out', certificateFile], {});
      expect(signed.status, signed.stderr).toBe(0);
      expect(signed.stderr).toMatch(/product acme-editor/);

      const loaded = await cli(['epoch', 'load', '--certificate', certificateFile], env);
      expect(loaded.status, loaded.stderr).toBe(0);
      expect(loaded.stdout).toContain(`epoch ${hexEncode(request.epochId)} active`);
      expect(`${created.stdout}${created.stderr}${loaded.stdout}${loaded.stderr}`).not.toContain(masterKeyHex);

      const server = await sandbox.start(env);
      await server.context.trust.refresh();
      const response = await fetch(`${server.url}/v1/keys`, { headers: protoHeaders });
      const keyset = verifyKeyset(await bodyBytes(response), [rootPublicKeyHex], Math.floor(Date.now() / 1000));
      expect(keyset.epochs.get(hexEncode(request.epochId))?.productScope).toBe('acme-editor');
      expect(server.context.devTrust).toBeUndefined();
      expect(existsSync(join(sandbox.dataDir, 'license', 'dev-root.key'))).toBe(false);
      if (engine.name === 'pglite') {
        const whileServing = await cli(['epoch', 'load', '--certificate', certificateFile], env);
        expect(whileServing.status).toBe(1);
        expect(whileServing.stderr).toMatch(/in use by process/);
      }
      await server.close();
    });

    it('signs a request given as hex on the command line, printing the certificate', async () => {
      const created = await cli(['epoch', 'create'], env);
      const requestHex = created.stdout.trim();
      const signed = await cli(['root', 'sign', '--root', join(work, 'root.key'), '--request', requestHex], {});
      expect(signed.status).toBe(0);
      expect(signed.stderr).toMatch(/every product/);
      expect((await cli(['epoch', 'load', '--certificate', signed.stdout.trim()], env)).status).toBe(0);
    });

    it('refuses a certificate from a root that is not pinned, naming the reason', async () => {
      const otherRoot = join(work, 'other-root.key');
      await cli(['root', 'create', '--out', otherRoot], {});
      const created = await cli(['epoch', 'create'], env);
      const signed = await cli(['root', 'sign', '--root', otherRoot, '--request', created.stdout.trim()], {});
      const loaded = await cli(['epoch', 'load', '--certificate', signed.stdout.trim()], env);
      expect(loaded.status).toBe(1);
      expect(loaded.stderr).toMatch(/is not pinned/);
    });

    it('refuses a root key file readable by others, and malformed arguments', async () => {
      const rootFile = join(work, 'loose-root.key');
      await cli(['root', 'create', '--out', rootFile], {});
      chmodSync(rootFile, 0o644);
      const created = await cli(['epoch', 'create'], env);
      const signed = await cli(['root', 'sign', '--root', rootFile, '--request', created.stdout.trim()], {});
      expect(signed.status).toBe(1);
      expect(signed.stderr).toMatch(/chmod 600/);
      expect((await cli(['epoch', 'create', '--days', '0'], env)).status).toBe(2);
      expect((await cli(['epoch', 'create', '--product', 'Acme Editor'], env)).status).toBe(2);
      expect((await cli(['epoch', 'load', '--certificate', 'not-hex'], env)).status).toBe(2);
      expect((await cli(['epoch', 'explode'], env)).status).toBe(2);
      expect((await cli(['root', 'create', '--out', join(work, 'x.key'), '--force'], {})).status).toBe(2);
      expect((await cli(['help'], {})).stdout).toMatch(/root create --out <file>/);
    });

    it('prints the usage and exits 2 for a missing option value or a stray argument', async () => {
      for (const args of [['root', 'create', '--out'], ['epoch', 'create', 'stray'], ['epoch', 'load', '--certificate'], ['root', 'sign', '--root', 'a', 'b']]) {
        const run = await cli(args, env);
        expect(run.status, args.join(' ')).toBe(2);
        expect(run.stderr, args.join(' ')).toMatch(/Usage: tollgate-license/);
      }
      expect(existsSync(join(work, '--out'))).toBe(false);
    });

    it('refuses epoch create with a generated dev master key when root pins are configured', async () => {
      const withoutMasterKey = { ...sandbox.env, LICENSE_ROOT_PUBLIC_KEYS: rootPublicKeyHex };
      const run = await cli(['epoch', 'create'], withoutMasterKey);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/LICENSE_MASTER_KEY/);
      expect(run.stdout).toBe('');
      expect(existsSync(join(sandbox.dataDir, 'license', 'master.key'))).toBe(false);
    });
  });
}

describe('production configuration', () => {
  it('requires the master key and root pins, and never echoes a malformed master key', async () => {
    const missing = await cli(['epoch', 'create'], { NODE_ENV: 'production' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/LICENSE_MASTER_KEY: expected a value in production/);
    expect(missing.stderr).toMatch(/LICENSE_ROOT_PUBLIC_KEYS: expected a value in production/);
    const secret = 'zz'.repeat(32);
    const malformed = await cli(['epoch', 'create'], { LICENSE_MASTER_KEY: secret });
    expect(malformed.stderr).toMatch(/LICENSE_MASTER_KEY: expected 32 bytes/);
    expect(malformed.stderr).not.toContain(secret);
  });
});
