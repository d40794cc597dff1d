/**
 * `POST /integrity/sign` when its audit append fails after the signature was made (at the append, or at
 * the COMMIT of the audited read): the answer is the 500 error envelope, no `integrity.sign` event is
 * recorded, and the signature never leaves the server. Ed25519 is deterministic, so the signature the
 * same manifest gets once the fault is gone is exactly the one a failed answer must not carry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { verifyEd25519 } from '@tollgate/core/crypto';
import { integrityManifestSigningMessage } from '@tollgate/core/license';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { describeFault, injectedFaultMessage, withFault, type InjectedFault } from '../fault-triggers';
import { serverEngines } from '../helpers';
import { manifestFor, registerKey, signRequest } from './integrity-fixtures';

const signAuditFaults: InjectedFault[] = [
  { table: 'license_audit_events', on: 'INSERT', when: "NEW.action = 'integrity.sign'" },
  { table: 'license_audit_events', on: 'INSERT', when: "NEW.action = 'integrity.sign'", atCommit: true },
];

for (const engine of serverEngines) {
  describe(`Integrity signing when the audit append fails [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
    }, 120_000);
    afterAll(() => bench?.close());

    const signEvents = async () =>
      Number((await bench.sql.query<{ n: string }>("SELECT count(*)::text AS n FROM license_audit_events WHERE vendor_id = $1 AND action = 'integrity.sign'", [bench.vendorA.vendorId])).rows[0]?.n);

    it('answers 500 without the signature and records nothing; the same manifest signs once the fault is gone', async () => {
      const { fingerprint, publicKey } = await registerKey(bench, bench.vendorA.productId);
      const manifest = manifestFor(bench.vendorA.productId, fingerprint);
      const eventsBefore = await signEvents();
      const failed: { fault: InjectedFault; status: number; headers: Headers; body: Uint8Array }[] = [];
      for (const fault of signAuditFaults) {
        const response = await withFault(bench.sql, fault, () => signRequest(bench, manifest));
        failed.push({ fault, status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) });
        expect(await signEvents(), describeFault(fault)).toBe(eventsBefore);
      }

      const signed = await signRequest(bench, manifest);
      expect(signed.status).toBe(200);
      const signature = new Uint8Array(await signed.arrayBuffer());
      expect(verifyEd25519(publicKey, integrityManifestSigningMessage(manifest), signature)).toBe(true);
      expect(await signEvents()).toBe(eventsBefore + 1);

      const signatureSpellings = [hexEncode(signature), Buffer.from(signature).toString('base64url'), Buffer.from(signature).toString('base64')];
      for (const answer of failed) {
        const label = describeFault(answer.fault);
        const text = new TextDecoder().decode(answer.body);
        expect([answer.status, answer.headers.get('content-type')?.split(';')[0], (JSON.parse(text) as { error: { code: string } }).error.code], label).toEqual([500, 'application/json', 'internal_error']);
        expect(answer.headers.get('x-ls-signer-key'), label).toBeNull();
        expect(text, label).not.toContain(injectedFaultMessage);
        expect(Buffer.from(answer.body).includes(Buffer.from(signature)), label).toBe(false);
        for (const spelling of signatureSpellings) expect(text, label).not.toContain(spelling);
      }
      expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
    }, 60_000);
  });
}
