/**
 * The telemetry block at key 11 of `POST /v1/validate`, over real HTTP: stored (clipped to the field
 * caps) when the policy permits telemetry and the user consented, dropped otherwise; a block over 512
 * bytes or of another shape is dropped too, and the validation never fails because of it. (Moved here
 * from test/client-validate-telemetry.test.ts when migration 018 keyed raw rows by pseudonym: the stored
 * columns are re-encoded as the block's canonical CBOR, which is byte-exact.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { requestProofMessage, type TelemetryBlock } from '@tollgate/core/license';
import { openClientBench, postCbor, validateBody, type ClientBench } from '../client/client-harness';
import { errorOf, licensedDevice, ticketOf } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { allowFeatures, subjectOf, telemetryBlock, telemetryEnv, twoCharacterIds } from './telemetry-fixtures';

/** The canonical size of a block, as the server measures it. */
const size = (block: TelemetryBlock) =>
  encodeCanonical(
    new Map<number, CborValue>([
      [0, block.consentVersion],
      [1, block.windowStart],
      [2, block.sessionCount],
      [3, block.sessionDurationHistogram],
      [4, block.featureHits],
      [5, block.daysActive],
    ])
  ).length;

/** A 64-character id (the catalog's longest), distinct per index. */
const longId = (index: number) => `${String(index).padStart(3, '0')}${'f'.repeat(61)}`;

for (const engine of serverEngines) {
  describe(`POST /v1/validate: the telemetry block as stored [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, telemetryEnv);
      // Only catalog feature ids are stored: publish every id these tests expect back.
      const longIds = [...Array.from({ length: 8 }, (_, index) => longId(index)), ...Array.from({ length: 64 }, (_, index) => 'z'.repeat(index + 1))];
      await allowFeatures(bench.admin.sql, bench.admin.vendorA, ['edit', 'export.pdf', 'b', ...twoCharacterIds(70), ...longIds]);
    }, 120_000);
    afterAll(() => bench?.close());

    type StoredRow = { consent_version: string; window_start: string; session_count: number; feature_hits: Record<string, number>; days_active: number } & Record<`duration_${string}`, string>;
    /** The machine's stored blocks, each as its canonical CBOR again. */
    const telemetryRows = async (machineId: string) =>
      (await bench.admin.sql.query<StoredRow>('SELECT * FROM license_telemetry_raw WHERE subject = $1 ORDER BY telemetry_id', [subjectOf(machineId)])).rows.map((row) => ({
        consent_version: row.consent_version,
        block: encodeCanonical(
          new Map<number, CborValue>([
            [0, Number(row.consent_version)],
            [1, Number(row.window_start)],
            [2, row.session_count],
            [3, [row.duration_under_5m, row.duration_under_30m, row.duration_under_2h, row.duration_2h_plus].map(Number)],
            [4, new Map(Object.entries(row.feature_hits))],
            [5, row.days_active],
          ])
        ),
      }));

    it('stores a block of at most 512 bytes when the policy permits telemetry and consent_version > 0', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const block = telemetryBlock();
      const ticket = await ticketOf(
        bench,
        await bench.validate(licensed.device, licensed.seat, {
          telemetry: block,
        })
      );
      expect(ticket.verdict).toBe(0);
      const rows = await telemetryRows(licensed.machineId);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]?.consent_version)).toBe(3);
      expect(decodeCanonical(rows[0]?.block as Uint8Array)).toEqual(
        new Map<number, CborValue>([
          [0, 3],
          [1, 1_790_000_000],
          [2, 12],
          [3, [4, 5, 2, 1]],
          [
            4,
            new Map([
              ['edit', 40],
              ['export.pdf', 2],
            ]),
          ],
          [5, 6],
        ])
      );
    });

    it('stores a block of exactly 512 bytes as sent', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const hits = new Map<string, number>();
      for (let index = 0; size(telemetryBlock({ featureHits: hits })) < 512 - 60; index += 1) hits.set(longId(index), 1);
      let block: TelemetryBlock | undefined;
      for (let length = 1; length <= 64 && block === undefined; length += 1) {
        const candidate = telemetryBlock({ featureHits: new Map([...hits, ['z'.repeat(length), 1]]) });
        if (size(candidate) === 512) block = candidate;
      }
      expect(block).toBeDefined();
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: block as TelemetryBlock }));
      const rows = await telemetryRows(licensed.machineId);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.block).toHaveLength(512);
    });

    it('clips fields over their caps instead of refusing: sessions, active days, hits, long or surplus feature ids', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const featureHits = new Map<string, number>([
        ['b', 50_000],
        ['x'.repeat(129), 1],
      ]);
      for (let index = 0; index < 70; index += 1) featureHits.set(index.toString(36).padStart(2, '0'), 1);
      const block = telemetryBlock({ sessionCount: 50_000, daysActive: 40, featureHits });
      expect(size(block)).toBeLessThanOrEqual(512);
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: block }));
      const stored = decodeCanonical((await telemetryRows(licensed.machineId))[0]?.block as Uint8Array) as Map<number, CborValue>;
      expect(stored.get(2)).toBe(10_000);
      expect(stored.get(5)).toBe(28);
      const hits = stored.get(4) as Map<string, number>;
      // Canonical order (shorter keys first): "b" with its hits clipped, then the first 63 two-character ids
      // (all catalog features); the 129-character id is dropped.
      expect(hits.size).toBe(64);
      expect(hits.get('b')).toBe(10_000);
      expect(hits.has('1r')).toBe(false);
      expect(hits.has('1q')).toBe(true);
      expect([...hits.keys()].some((id) => id.length > 128)).toBe(false);
    });

    it('drops without storing a block of no consent or under a policy without telemetry; the ticket is the same', async () => {
      const consenting = await licensedDevice(bench, { telemetry: 't1' });
      await ticketOf(
        bench,
        await bench.validate(consenting.device, consenting.seat, {
          telemetry: telemetryBlock({ consentVersion: 0 }),
        })
      );
      expect(await telemetryRows(consenting.machineId)).toHaveLength(0);
      const off = await licensedDevice(bench, { telemetry: 'off' });
      await ticketOf(bench, await bench.validate(off.device, off.seat, { telemetry: telemetryBlock() }));
      expect(await telemetryRows(off.machineId)).toHaveLength(0);
    });

    /** A validate body whose key 11 is `raw` (any CBOR), signed by the device over exactly what is sent. */
    async function bodyWithRawTelemetry(licensed: Awaited<ReturnType<typeof licensedDevice>>, raw: CborValue): Promise<Uint8Array> {
      const map = decodeCanonical(await validateBody(licensed.device, licensed.seat, bench.productId)) as Map<CborKey, CborValue>;
      map.delete(15);
      map.set(11, raw);
      map.set(15, await licensed.device.signer.sign(requestProofMessage('validate-request', bench.productId, map)));
      return encodeCanonical(map);
    }

    it('never fails a validation for a block over 512 bytes or a malformed one: the ticket is issued and the block dropped', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const oversized = new Map<number, CborValue>([
        [0, 1],
        [1, 0],
        [2, 1],
        [3, [0, 0, 0, 0]],
        [
          4,
          new Map([
            ['x'.repeat(500), 1],
            ['y'.repeat(20), 2],
          ]),
        ],
        [5, 1],
      ]);
      expect(encodeCanonical(oversized).length).toBeGreaterThan(512);
      for (const raw of [
        oversized,
        'not a block',
        new Map<number, CborValue>([[0, 1]]),
        new Map<number, CborValue>([
          [0, 1],
          [1, 0],
          [2, 1],
          [3, [1]],
          [4, new Map()],
          [5, 1],
        ]),
      ]) {
        const answer = await postCbor(bench.url, '/v1/validate', await bodyWithRawTelemetry(licensed, raw));
        const ticket = await ticketOf(bench, answer);
        expect(ticket.verdict).toBe(0);
      }
      expect(await telemetryRows(licensed.machineId)).toHaveLength(0);
      // The proof covers the block as sent: altering the dropped block after signing is a forged request.
      const body = decodeCanonical(await bodyWithRawTelemetry(licensed, oversized)) as Map<CborKey, CborValue>;
      body.set(11, 'tampered');
      const tampered = await postCbor(bench.url, '/v1/validate', encodeCanonical(body));
      expect([tampered.status, errorOf(tampered).code]).toEqual([401, 1000]);
    });
  });
}
