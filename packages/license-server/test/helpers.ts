import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { coreMigrations, licenseMigrations } from '@tollgate/core';
import { decodeCanonical } from '@tollgate/core/cbor';
import type { EnvRecord } from '@tollgate/core/config';
import { licenseProtocolHeader } from '@tollgate/core/license';
import { createScratchDatabase, pgliteTestTemplate, testDatabaseEngines, type TestEngine } from '@tollgate/core/testing';
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

/**
 * Opens a sandbox: on PGlite a data directory seeded from the migrated template; on PostgreSQL a fresh
 * database (`createScratchDatabase`), dropped by `cleanup()` or, inside a test run, by its teardown.
 */
export async function openServerSandbox(engine: TestEngine): Promise<ServerSandbox> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-license-'));
  const env: EnvRecord = { LICENSE_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  let dropDatabase = async () => undefined as void;
  if (engine.name === 'pglite') {
    // Migrations already applied: the server's start only checks them (its own start-up test migrates).
    cpSync(await pgliteTestTemplate([coreMigrations, licenseMigrations]), licenseDatabaseDir({ dataDir }), { recursive: true });
  } else {
    const database = await createScratchDatabase(engine.connectionString as string, 'tollgate_license');
    env['LICENSE_DATABASE_URL'] = database.url;
    dropDatabase = database.drop;
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
