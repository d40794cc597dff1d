// A Node command-line app licensed with Tollgate: it activates once with a license key, keeps its
// license in an encrypted file, gates a feature on the entitlements, and keeps running from that file
// when the license server cannot be reached (the grace window the policy grants).
//
//   LICENSE_SERVER_URL=… LICENSE_PRODUCT_ID=… LICENSE_PINNED_ROOTS=<hex,hex> \
//     npm run example -- license-node-cli <license key>       # first run: activates
//   npm run example -- license-node-cli                       # later runs: from storage, online or not
//
// Environment: LICENSE_KEY (instead of the argument), LICENSE_STATE_DIR (default ~/.acme-cli),
// DEVICE_SECRET (hex, ≥ 16 bytes; see below). In a real app the URL, product id and pinned roots are
// compiled in, and the device secret comes from the OS keychain (see the README's recipe).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { arch, homedir, hostname, platform, userInfo } from 'node:os';
import { join } from 'node:path';
import { createLicenseClient, usableStates } from '@tollgate/client-sdk';
import { createFileStorage, deriveStorageKey } from '@tollgate/client-sdk/node';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const stateDir = process.env['LICENSE_STATE_DIR'] || join(homedir(), '.acme-cli');

/** A stable identity of this machine: /etc/machine-id where there is one, else host and user. */
function machineIdentity(): string {
  try {
    return readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {
    return `${hostname()}/${userInfo().username}`;
  }
}

// The storage key must not live next to the file it protects: take it from the keychain in production.
// DEVICE_SECRET stands in for that here; without it the key is derived from the machine identity, which
// only keeps the file from being copied to another machine as is.
const deviceSecret = process.env['DEVICE_SECRET'] ? Buffer.from(process.env['DEVICE_SECRET'], 'hex') : createHash('sha256').update(machineIdentity()).digest();

const license = createLicenseClient({
  baseUrl: required('LICENSE_SERVER_URL'),
  productId: required('LICENSE_PRODUCT_ID'),
  pinnedRoots: required('LICENSE_PINNED_ROOTS').split(','),
  storage: createFileStorage({ path: join(stateDir, 'license.bin'), key: deriveStorageKey(deviceSecret, 'acme-cli') }),
  fingerprint: () => createHash('sha256').update(`acme-cli/${machineIdentity()}`).digest(),
  clientInfo: { appVersion: '1.0.0', sdkVersion: '0.1.0', os: platform(), arch: arch() },
});
license.on('state', ({ state, reason, graceEndsAt }) => {
  const until = graceEndsAt === undefined ? '' : ` until ${new Date(graceEndsAt * 1000).toISOString()}`;
  console.error(`[license] ${state}${reason ? ` (${reason})` : ''}${until}`);
});

let state = await license.start();
const key = process.argv[2] || process.env['LICENSE_KEY'];
if (state === 'unlicensed' && key) state = await license.activate({ licenseKey: key });
// A short-lived process exits before the client's own timers fire: check in now when a check is due.
// `validateNow` never throws; with the server away it keeps the stored license for its grace window.
if (state === 'needs_revalidation' || state === 'grace') state = await license.validateNow();
await license.stop();

if (!usableStates.has(state)) {
  console.log(`license: ${state}`);
  console.log(state === 'unlicensed' ? 'Run again with your license key: license-node-cli <key>' : 'This device is not licensed to run acme-cli.');
  process.exit(1);
}
console.log(`license: ${state}`);
console.log(`tier: ${license.entitlements()?.tier ?? '(none)'}`);
// Gate on features, not tiers: a tier's features can change on the server without an app update.
if (license.hasFeature('export-pdf')) console.log('export-pdf: exporting report.pdf');
else console.log('export-pdf: not in your plan (upgrade to export)');
