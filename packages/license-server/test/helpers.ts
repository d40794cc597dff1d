import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { coreMigrations, decodeCanonical, licenseMigrations, licenseProtocolHeader, type EnvRecord } from '@tollgate/core';
import { pgliteTestTemplate, testDatabaseEngines, type TestEngine } from '@tollgate/core/testing';
import { licenseDatabaseDir, loadLicenseConfig, startLicenseServer, type RunningLicenseServer, type StartLicenseOptions } from '@tollgate/license-server';

/** Headers every client-protocol request carries. */
export const protoHeaders = { [licenseProtocolHeader]: '1' };

/** The engines the server tests run on: PGlite, plus PostgreSQL when TOLLGATE_TEST_DATABASE_URL is set. */
export const serverEngines: TestEngine[] = await testDatabaseEngines();

/** A throwaway data directory (and, on the server engine, a throwaway database). */
export interface ServerSandbox {
  readonly dataDir: string;
  /** Environment for `loadLicenseConfig` pointing at the sandbox. */
  readonly env: EnvRecord;
  start(extraEnv?: EnvRecord, options?: StartLicenseOptions): Promise<RunningLicenseServer>;
  cleanup(): Promise<void>;
}

async function withAdmin<T>(connectionString: string, run: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * Opens a sandbox: on PGlite a data directory seeded from the template; on PostgreSQL a fresh database
 * (`CREATE DATABASE`), dropped by `cleanup()`.
 */
export async function openServerSandbox(engine: TestEngine): Promise<ServerSandbox> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-license-'));
  const env: EnvRecord = { LICENSE_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  let dropDatabase = async () => undefined as void;
  if (engine.name === 'pglite') {
    // Migrations already applied: the server's start only checks them (its own start-up test migrates).
    cpSync(await pgliteTestTemplate([coreMigrations, licenseMigrations]), licenseDatabaseDir({ dataDir }), { recursive: true });
  } else {
    const adminUrl = engine.connectionString as string;
    const name = `tollgate_license_${crypto.getRandomValues(new Uint8Array(6)).reduce((text, byte) => text + byte.toString(16).padStart(2, '0'), '')}`;
    await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    env['LICENSE_DATABASE_URL'] = url.toString();
    dropDatabase = async () => {
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    };
  }
  const servers: RunningLicenseServer[] = [];
  return {
    dataDir,
    env,
    async start(extraEnv = {}, options = {}) {
      const server = await startLicenseServer(loadLicenseConfig({ ...env, ...extraEnv }), { print: () => undefined, ...options });
      servers.push(server);
      return server;
    },
    async cleanup() {
      await Promise.all(servers.map((server) => server.close()));
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads a response body as bytes. */
export async function bodyBytes(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

/** Decodes a CBOR error body `{0: code, 1?: message, 2?: retry_after}`. */
export async function errorBody(response: Response): Promise<Map<number, unknown>> {
  return decodeCanonical(await bodyBytes(response)) as Map<number, unknown>;
}

/** A pino destination that keeps lines in memory (to assert nothing secret is logged). */
export function memoryLog(): { destination: Writable; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { destination, lines };
}
