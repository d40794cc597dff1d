import type { Clock } from '@tollgate/core';
import { encodeCborSequence, encodeKeyset, revocationPageRange, signArtifact } from '@tollgate/core/license';
import { epochCertificateFor, vectorBytes, vectorEpochs } from '../../core/test/vectors/license-fixtures';

/** One request the fake server saw. */
export interface SeenRequest {
  url: string;
  headers: Record<string, string>;
}

/**
 * An in-memory license server for the SDK tests: serves a keyset and a revocation feed with the real
 * framing and caching rules, and records every request.
 */
export async function createFakeLicenseServer(options: { clock: Clock }) {
  const certificates = await Promise.all([vectorEpochs.global, vectorEpochs.acme].map((epoch) => epochCertificateFor(epoch)));
  const batches: Uint8Array[] = [];
  const seen: SeenRequest[] = [];
  let keysetResponse: () => Response = () =>
    new Response(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: batches.length }) as BodyInit, {
      status: 200,
      headers: { 'content-type': 'application/cbor', 'cache-control': 'public, max-age=300' },
    });

  const fetch = async (input: string, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    seen.push({ url: input, headers: Object.fromEntries(new Headers(init?.headers).entries()) });
    if (url.pathname === '/v1/keys') return keysetResponse();
    if (url.pathname === '/v1/revocations') {
      const range = revocationPageRange(BigInt(url.searchParams.get('since') ?? '0'), batches.length);
      if (range === undefined) return new Response(null, { status: 204 });
      return new Response(encodeCborSequence(batches.slice(range.first - 1, range.last)) as BodyInit, {
        status: 200,
        headers: { 'content-type': 'application/cbor-seq', 'cache-control': range.complete ? 'public, max-age=31536000, immutable' : 'no-store' },
      });
    }
    return new Response(null, { status: 404 });
  };

  return {
    fetch,
    seen,
    certificates,
    /** Publishes `count` more batches signed by the global epoch, each revoking one license. */
    async publish(count: number): Promise<void> {
      for (let n = 0; n < count; n += 1) {
        const seq = batches.length + 1;
        batches.push(
          await signArtifact(
            'revocation-batch',
            { protoVersion: 1, seq, issuedAt: Math.floor(options.clock.now() / 1000), licenseIds: [vectorBytes(`revoked-${seq}`, 16)], machineIds: [], epochIds: seq === 2 ? [vectorEpochs.expired.epochId] : [] },
            { signer: vectorEpochs.global.signer },
          ),
        );
      }
    },
    batch: (seq: number) => batches[seq - 1] as Uint8Array,
    replaceKeysetResponse(next: () => Response) {
      keysetResponse = next;
    },
  };
}
