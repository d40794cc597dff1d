/**
 * Seeds and readers shared by the license and machine Admin suites: policies, catalog items, machines
 * and subscriptions go straight to the tables (their own routes are other suites' business), licenses
 * through `POST /v1/admin/licenses`.
 */
import { policyDefaults, splitCborSequence, verifyArtifact, verifyKeyset, type BootstrappedVendor, type RevocationBatch } from '@tollgate/core/license';
import { freshKey, type AdminHarness } from './admin-harness';
import { bodyBytes, protoHeaders } from '../helpers';

/** Stores a policy of the vendor's product with the given terms and returns its id. */
export async function seedPolicy(bench: AdminHarness, vendor: BootstrappedVendor, terms: Record<string, unknown> = {}): Promise<string> {
  const policyId = crypto.randomUUID().replace(/-/g, '');
  const document = { ...policyDefaults, id: policyId, product_id: vendor.productId, name: 'Standard', seats: 3, offline_allowed: true, ...terms };
  await bench.sql.query('INSERT INTO license_policies (policy_id, vendor_id, product_id, version, document, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, now(), now())', [
    policyId,
    vendor.vendorId,
    vendor.productId,
    JSON.stringify(document),
  ]);
  return policyId;
}

/** Publishes catalog items of the vendor's product, unless already there. */
export async function seedCatalog(bench: AdminHarness, vendor: BootstrappedVendor, items: { kind: 'feature' | 'group' | 'tier'; id: string; features?: string[] }[]): Promise<void> {
  for (const item of items) {
    await bench.sql.query(
      `INSERT INTO license_catalog_items (vendor_id, product_id, kind, item_id, name, members, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4, $5, now(), now()) ON CONFLICT DO NOTHING`,
      [vendor.vendorId, vendor.productId, item.kind, item.id, JSON.stringify({ features: item.features ?? [], groups: [] })],
    );
  }
}

/** Issues `count` licenses of `policyId` (vendor A's token unless another is given) and returns them with their keys. */
export async function issueLicenses(bench: AdminHarness, policyId: string, body: Record<string, unknown> = {}, token?: string): Promise<{ license_id: string; key: string; [field: string]: unknown }[]> {
  const answer = await bench.call('POST', '/licenses', { body: { policy_id: policyId, count: 1, ...body }, key: freshKey(), ...(token === undefined ? {} : { token }) });
  if (answer.status !== 201) throw new Error(`issue failed: ${answer.status} ${answer.text}`);
  return answer.body.licenses;
}

/** Activates `count` machines on a license straight in the table (the activation route comes later); newest last. */
export async function seedMachines(bench: AdminHarness, vendor: BootstrappedVendor, licenseId: string, count: number): Promise<string[]> {
  const { rows } = await bench.sql.query<{ machine_id: string }>(
    `INSERT INTO license_machines (machine_id, license_id, vendor_id, fingerprint_hash, device_public_key, status, name, platform, created_at, last_seen_at)
     SELECT md5(random()::text || n), $1, $2, md5(random()::text) || md5(random()::text), decode(repeat('00', 32), 'hex'), 'active', 'Box ' || n, 'linux-x64',
            now() - make_interval(secs => $3 - n), now()
     FROM generate_series(1, $3::integer) AS n
     RETURNING machine_id`,
    [licenseId, vendor.vendorId, count],
  );
  return rows.map((row) => row.machine_id);
}

/** Attaches a billing subscription to a license. */
export async function seedSubscription(bench: AdminHarness, vendor: BootstrappedVendor, licenseId: string, periodEnd = new Date(Date.now() + 30 * 86_400_000)): Promise<void> {
  await bench.sql.query(
    `INSERT INTO license_subscriptions (license_id, vendor_id, provider, external_id, status, current_period_end, created_at, updated_at)
     VALUES ($1, $2, 'stripe', $3, 'active', $4, now(), now())`,
    [licenseId, vendor.vendorId, `sub_${licenseId}`, periodEnd],
  );
}

/**
 * Every `license_…` table as text (but those in `options.skip`): what a dry run must leave unchanged,
 * and where a secret must not appear.
 */
export async function snapshotTables(bench: AdminHarness, options: { skip?: readonly string[] } = {}): Promise<string> {
  const { rows } = await bench.sql.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'license\\_%' ORDER BY tablename");
  const parts: string[] = [];
  for (const { name } of rows) {
    // The analytics job moves outbox rows into events and rolls days up in the background (at start and
    // every few seconds): its tables stand in only as the number of events, which no job changes.
    if (name.startsWith('license_analytics_') || options.skip?.includes(name) === true) continue;
    const { rows: content } = await bench.sql.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t ORDER BY 1`);
    parts.push(name, ...content.map((row) => row.row));
  }
  const { rows: events } = await bench.sql.query<{ n: string }>('SELECT ((SELECT count(*) FROM license_analytics_events) + (SELECT count(*) FROM license_analytics_outbox))::text AS n');
  parts.push(`analytics events: ${events[0]?.n}`);
  return parts.join('\n');
}

/** The verified keyset the server serves now. */
export async function currentKeyset(bench: AdminHarness) {
  const response = await fetch(`${bench.url}/v1/keys`, { headers: protoHeaders });
  return verifyKeyset(await bodyBytes(response), bench.server.context.pinnedRoots, Math.floor(Date.now() / 1000));
}

/** The revocation batches published after `since`, verified as a client would. */
export async function readFeed(bench: AdminHarness, since = 0): Promise<RevocationBatch[]> {
  const keys = await currentKeyset(bench);
  const response = await fetch(`${bench.url}/v1/revocations?since=${since}`, { headers: protoHeaders });
  if (response.status === 204) return [];
  if (response.status !== 200) throw new Error(`GET /v1/revocations answered ${response.status}`);
  return splitCborSequence(await bodyBytes(response)).map((item) => verifyArtifact(item, 'revocation-batch', { keys, now: Math.floor(Date.now() / 1000) }).payload);
}

/** Lowercase hex of bytes. */
export const hexOf = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** The "Pro yearly" policy body the policy tests create (a t1 tier with a fallback), with `changes` applied. */
export function proYearlyPolicyBody(productId: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    product_id: productId,
    name: 'Pro yearly',
    seats: 3,
    validation_interval_seconds: 86_400,
    validation_grace_seconds: 604_800,
    heartbeat_window_seconds: null,
    offline_allowed: false,
    version_scope: { min: '2.0.0', max_exclusive: '3.0.0' },
    tier: 'pro',
    telemetry: 't1',
    duration_seconds: 31_536_000,
    expiry_behavior: 'fallback',
    fallback_tier: 'free',
    ...changes,
  };
}
