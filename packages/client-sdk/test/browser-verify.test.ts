// The client SDK's default entry, bundled for the browser platform, verifies what a real license server
// signs: the keyset it serves (against the pinned roots) and a machine credential it issued, and refuses
// a tampered credential and a keyset under the wrong pin. The same bundle runs in Node (always) and in
// headless Chromium (Debian's chromium through playwright-core, as the pay-page tests use it). The
// Chromium half is skipped, with a note on stderr, only where no Chromium exists and CI is not set.
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { verifyArtifact as verifyInNode } from '@tollgate/core/license';
import { packages } from '../../../scripts/workspace.mjs';
import { issueClientLicense, newDevice, openClientBench, type ClientBench } from '../../license-server/test/client/client-harness';
import { bodyBytes, protoHeaders, serverEngines } from '../../license-server/test/helpers';
import { currentKeyset } from '../../license-server/test/admin/admin-license-fixtures';
import { findChromium, launchChromium, runningInCi } from '../../gateway-server/test/pay-page/browser';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const chromiumPath = findChromium();
const skipChromium = chromiumPath === undefined && !runningInCi();
if (skipChromium) process.stderr.write('client SDK browser verification in Chromium SKIPPED: no Chromium (TOLLGATE_CHROMIUM, /usr/lib/chromium/chromium, /usr/bin/chromium); apt-get install -y chromium.\n');

// The page's entry: only the public API of `@tollgate/client-sdk`, as a web app would import it.
const entry = `
import { verifyKeyset, verifyArtifact, verifyWithChecks, webCryptoEd25519Verifier } from '@tollgate/client-sdk';
const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
const refusal = (run) => { try { run(); return 'accepted'; } catch (error) { return error.reason ?? error.name; } };
export function check(input) {
  const keysetBytes = new Uint8Array(input.keyset);
  const credentialBytes = new Uint8Array(input.credential);
  const keyset = verifyKeyset(keysetBytes, input.pins, input.now);
  const options = { productId: input.productId, now: input.now, revokedEpochIds: [] };
  const credential = verifyArtifact(credentialBytes, 'machine-credential', keyset, options).payload;
  const tampered = credentialBytes.slice();
  tampered[tampered.length - 1] ^= 1;
  return {
    runtime: typeof window === 'undefined' ? 'node' : 'browser',
    epochIds: [...keyset.epochs.keys()].sort(),
    licenseId: hex(credential.licenseId),
    machineId: hex(credential.machineId),
    tier: credential.entitlements.tier,
    tampered: refusal(() => verifyArtifact(tampered, 'machine-credential', keyset, options)),
    wrongPin: refusal(() => verifyKeyset(keysetBytes, [input.wrongPin], input.now)),
  };
}
// The same checks with WebCrypto's Ed25519 (noble answers where the runtime lacks it), counting its checks.
export async function checkWithWebCrypto(input) {
  const subtle = globalThis.crypto.subtle;
  let webCryptoChecks = 0;
  const verifier = webCryptoEd25519Verifier({
    importKey: (...args) => subtle.importKey(...args),
    verify: (...args) => { webCryptoChecks += 1; return subtle.verify(...args); },
  });
  const run = (work) => verifyWithChecks(verifier, work);
  const keysetBytes = new Uint8Array(input.keyset);
  const credentialBytes = new Uint8Array(input.credential);
  const keyset = await run((verify) => verifyKeyset(keysetBytes, input.pins, input.now, { verify }));
  const options = { productId: input.productId, now: input.now, revokedEpochIds: [] };
  const credential = (await run((verify) => verifyArtifact(credentialBytes, 'machine-credential', keyset, { ...options, verify }))).payload;
  const tampered = credentialBytes.slice();
  tampered[tampered.length - 1] ^= 1;
  const refusedAs = (work) => run(work).then(() => 'accepted', (error) => error.reason ?? error.name);
  return {
    epochIds: [...keyset.epochs.keys()].sort(),
    licenseId: hex(credential.licenseId),
    machineId: hex(credential.machineId),
    tier: credential.entitlements.tier,
    tampered: await refusedAs((verify) => verifyArtifact(tampered, 'machine-credential', keyset, { ...options, verify })),
    webCryptoChecks,
  };
}
`;

/** Bundles the entry for browsers (IIFE, global `TollgateCheck`), workspace packages from source. */
async function browserBundle(): Promise<string> {
  const sources = new Map(packages.flatMap((pkg) => Object.entries(pkg.entries).map(([subpath, source]) => [subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, join(root, pkg.dir, source)])));
  const result = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'js', sourcefile: 'browser-check.js' },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'TollgateCheck',
    target: 'es2022',
    loader: { '.sql': 'text' },
    logLevel: 'silent',
    plugins: [{ name: 'workspace-sources', setup: (b) => b.onResolve({ filter: /^@tollgate\// }, (args) => ({ path: sources.get(args.path) as string })) }],
  });
  return result.outputFiles[0]!.text;
}

interface CheckInput {
  keyset: number[];
  credential: number[];
  pins: string[];
  wrongPin: string;
  productId: string;
  now: number;
}

let bench: ClientBench;
let bundle: string;
let input: CheckInput;
let expected: { epochIds: string[]; licenseId: string; machineId: string; tier: string; tampered: string; wrongPin: string };

beforeAll(async () => {
  bench = await openClientBench(serverEngines.find((engine) => engine.name === 'pglite')!);
  bundle = await browserBundle();
  const license = await issueClientLicense(bench);
  const activation = await bench.activate(newDevice(), { licenseKey: license.key });
  expect(activation.status).toBe(200);
  const keysetBytes = await bodyBytes(await fetch(`${bench.url}/v1/keys`, { headers: protoHeaders }));
  const now = Math.floor(Date.now() / 1000);
  input = {
    keyset: [...keysetBytes],
    credential: [...activation.bytes],
    pins: bench.admin.server.context.pinnedRoots.map((pin) => hexEncode(pin)),
    wrongPin: hexEncode(randomBytes(32)),
    productId: bench.productId,
    now,
  };
  // What the server meant, read by core's verifier in Node with the keyset the harness trusts.
  const keys = await currentKeyset(bench.admin);
  const credential = verifyInNode(activation.bytes, 'machine-credential', { keys, productId: bench.productId, now }).payload;
  expected = {
    epochIds: [...keys.epochs.keys()].sort(),
    licenseId: hexEncode(credential.licenseId),
    machineId: hexEncode(credential.machineId),
    tier: credential.entitlements.tier,
    tampered: 'bad_signature',
    wrongPin: expect.any(String) as unknown as string,
  };
}, 120_000);
afterAll(() => bench?.close());

describe('the client SDK browser bundle against a real license server', () => {
  it('verifies the keyset and a machine credential when the same bundle runs in Node', () => {
    const check = new Function(`${bundle}; return TollgateCheck.check;`)() as (input: CheckInput) => Record<string, unknown>;
    const result = check(input);
    expect(result).toEqual({ runtime: 'node', ...expected });
    expect(result['wrongPin']).not.toBe('accepted');
  });

  it("verifies them with Node's WebCrypto Ed25519 through the same bundle", async () => {
    const { checkWithWebCrypto } = new Function(`${bundle}; return TollgateCheck;`)() as { checkWithWebCrypto(input: CheckInput): Promise<Record<string, unknown>> };
    const { wrongPin: _wrongPin, ...same } = expected;
    const result = await checkWithWebCrypto(input);
    expect(result).toEqual({ ...same, webCryptoChecks: expect.any(Number) });
    // Every certificate of the keyset, the credential and its tampered copy.
    expect(result['webCryptoChecks']).toBe(expected.epochIds.length + 2);
  });

  describe.skipIf(skipChromium)('in headless Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      if (chromiumPath === undefined) throw new Error('CI is set but no Chromium was found (/usr/lib/chromium/chromium, /usr/bin/chromium or TOLLGATE_CHROMIUM): install it with apt-get install -y chromium.');
      browser = await launchChromium(chromiumPath);
    }, 60_000);
    afterAll(() => browser?.close());

    it('imports the bundle in a page and verifies the same keyset and credential there', async () => {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.setContent('<!doctype html><title>tollgate</title>');
      await page.addScriptTag({ content: bundle });
      const result = await page.evaluate((data) => (window as unknown as { TollgateCheck: { check(input: unknown): Record<string, unknown> } }).TollgateCheck.check(data), input);
      expect(problems).toEqual([]);
      expect(result).toEqual({ runtime: 'browser', ...expected });
      expect(result['wrongPin']).not.toBe('accepted');
      const viaWebCrypto = await page.evaluate((data) => (window as unknown as { TollgateCheck: { checkWithWebCrypto(input: unknown): Promise<Record<string, unknown>> } }).TollgateCheck.checkWithWebCrypto(data), input);
      const { wrongPin: _wrongPin, ...same } = expected;
      expect(viaWebCrypto).toEqual({ ...same, webCryptoChecks: expect.any(Number) });
      // Chromium ships Ed25519 in WebCrypto since version 137; an older one is answered by noble.
      process.stderr.write(`client SDK in Chromium ${browser.version()}: ${String(viaWebCrypto['webCryptoChecks'])} WebCrypto Ed25519 checks\n`);
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
  });
});
