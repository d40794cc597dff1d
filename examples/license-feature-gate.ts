// Gating an app's features on the license's entitlements, and keeping the gates right as the license
// changes: every `state` event re-renders the menu from `hasFeature`, so a license that locks, is
// revoked or is deactivated closes the gates at once, and one that comes back opens them again.
//
//   LICENSE_SERVER_URL=… LICENSE_PRODUCT_ID=… LICENSE_PINNED_ROOTS=<hex,hex> LICENSE_KEY=… \
//     npm run example -- license-feature-gate
//
// It activates with memory storage (nothing is kept), shows the menu, then deactivates to free the seat.
import { createLicenseClient, createMemoryStorage, usableStates, type LicenseClient } from '@tollgate/client-sdk';

/** The app's menu: each item needs one feature of the catalog (one with none needs only a usable license). */
const menu = [
  { label: 'Edit', feature: undefined },
  { label: 'Export to PDF', feature: 'export-pdf' },
  { label: 'Cloud sync', feature: 'sync' },
] as const;

/** Renders the menu from what the license allows right now. */
function renderMenu(license: LicenseClient): string {
  return menu
    .map(({ label, feature }) => {
      const open = feature === undefined ? usableStates.has(license.state) : license.hasFeature(feature);
      return `${open ? '[x]' : '[ ]'} ${label}`;
    })
    .join('  ');
}

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const license = createLicenseClient({
  baseUrl: env('LICENSE_SERVER_URL'),
  productId: env('LICENSE_PRODUCT_ID'),
  pinnedRoots: env('LICENSE_PINNED_ROOTS').split(','),
  storage: createMemoryStorage(),
  fingerprint: crypto.getRandomValues(new Uint8Array(32)), // a new device each run: nothing is stored
  clientInfo: { appVersion: '1.0.0', sdkVersion: '0.1.0', os: process.platform, arch: process.arch },
});

// The one place the gates are drawn: on every change of state, whatever caused it.
license.on('state', ({ state, previous, reason }) => {
  console.log(`state: ${previous} -> ${state}${reason ? ` (${reason})` : ''}`);
  console.log(`menu: ${renderMenu(license)}`);
});

await license.start();
await license.activate({ licenseKey: env('LICENSE_KEY') });
const entitlements = license.entitlements();
console.log(`tier ${entitlements?.tier ?? '(none)'}, features: ${entitlements?.features.join(', ') || '(none)'}`);
// Gate an action at the moment it runs too, not only in the menu: the state may have changed since.
if (license.hasFeature('export-pdf')) console.log('export: report.pdf written');
await license.deactivate();
await license.stop();
