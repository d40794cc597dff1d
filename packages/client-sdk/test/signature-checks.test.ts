// The SDK's Ed25519 checks: Node's native one by default, WebCrypto's driven through the synchronous
// verification in passes, noble as the fallback. Each must reach the verdict noble reaches, on real
// keysets and tickets and on tampered ones.
import { describe, expect, it } from 'vitest';
import { createNobleEd25519Signer } from '@tollgate/core';
import { verifyEd25519 } from '@tollgate/core/crypto';
import { encodeKeyset, signArtifact, type SignatureVerifier } from '@tollgate/core/license';
import { defaultSignatureVerifier, verifyArtifact, verifyKeyset, verifyWithChecks, webCryptoEd25519Verifier, type AsyncSignatureVerifier } from '@tollgate/client-sdk';
import { epochCertificateFor, samplePayloads, vectorEpochs, vectorNow, vectorPins, vectorProductId } from '../../core/test/vectors/license-fixtures';

const flipLast = (bytes: Uint8Array) => {
  const copy = bytes.slice();
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 1;
  return copy;
};

async function fixtures() {
  const { acme, global, successor } = vectorEpochs;
  const signer = createNobleEd25519Signer({ privateKey: acme.seed, kid: acme.epochIdHex });
  const ticket = await signArtifact('validation-ticket', (await samplePayloads())['validation-ticket'], { signer, productId: vectorProductId });
  const certificates = await Promise.all([global, acme, successor].map((epoch) => epochCertificateFor(epoch)));
  const keyset = encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 3 });
  // The second certificate's signature (a COSE_Sign1 ends with it) has one bit flipped.
  const tamperedKeyset = encodeKeyset({ protoVersion: 1, certificates: certificates.map((certificate, index) => (index === 1 ? flipLast(certificate) : certificate)), revocationEpoch: 3 });
  return { ticket, keyset, tamperedKeyset, keys: { epochs: new Map([[acme.epochIdHex, acme]]) } };
}

/** WebCrypto's subtle, counting the signatures it was asked to check. */
function countedSubtle() {
  const subtle = globalThis.crypto.subtle;
  const counted = {
    checks: 0,
    importKey: subtle.importKey.bind(subtle) as SubtleCrypto['importKey'],
    verify: ((...args: Parameters<SubtleCrypto['verify']>) => {
      counted.checks += 1;
      return subtle.verify(...args);
    }) as SubtleCrypto['verify'],
  };
  return counted;
}


describe('signature checks', () => {
  it('verifies a keyset and a ticket with WebCrypto, one asynchronous check per signature, and refuses tampered ones', async () => {
    const { ticket, keyset, tamperedKeyset, keys } = await fixtures();
    const subtle = countedSubtle();
    const verifier = webCryptoEd25519Verifier(subtle);
    const verified = await verifyWithChecks(verifier, (verify) => verifyKeyset(keyset, vectorPins, vectorNow, { verify }));
    expect([...verified.epochs.keys()].sort()).toEqual([...verifyKeyset(keyset, vectorPins, vectorNow).epochs.keys()].sort());
    // One per certificate (the keyset envelope itself is not signed).
    expect(subtle.checks).toBe(3);
    const options = { keys, productId: vectorProductId, now: vectorNow, revokedEpochIds: [] };
    const payload = (await verifyWithChecks(verifier, (verify) => verifyArtifact(ticket, 'validation-ticket', keys, { ...options, verify }))).payload;
    expect(payload).toEqual(verifyArtifact(ticket, 'validation-ticket', keys, options).payload);
    await expect(verifyWithChecks(verifier, (verify) => verifyArtifact(flipLast(ticket), 'validation-ticket', keys, { ...options, verify }))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(verifyWithChecks(verifier, (verify) => verifyKeyset(tamperedKeyset, vectorPins, vectorNow, { verify }))).rejects.toMatchObject({ reason: 'bad_signature' });
    expect(() => verifyKeyset(tamperedKeyset, vectorPins, vectorNow)).toThrow(/signature/);
  });

  it('reaches the verdict of the asynchronous answer even when the verification swallows the pause', async () => {
    const { ticket, keys } = await fixtures();
    const asked: Uint8Array[] = [];
    const refusing: AsyncSignatureVerifier = {
      verifyAsync: async (publicKey, message, signature) => {
        asked.push(signature);
        return false;
      },
    };
    // A verification that treats any throw of its check as "invalid" and carries on.
    const lenient = (verify: SignatureVerifier) => {
      let valid: boolean;
      try {
        valid = verify(keys.epochs.get(vectorEpochs.acme.epochIdHex)!.publicKey, ticket, ticket.subarray(0, 64));
      } catch {
        valid = false;
      }
      return valid ? 'accepted' : 'refused';
    };
    expect(await verifyWithChecks(refusing, lenient)).toBe('refused');
    expect(asked).toHaveLength(1);
    const accepting: AsyncSignatureVerifier = { verifyAsync: async () => true };
    expect(await verifyWithChecks(accepting, lenient)).toBe('accepted');
  });

  it('falls back to noble where WebCrypto has no Ed25519, and applies the strict byte checks first', async () => {
    const { ticket, keys } = await fixtures();
    const without = webCryptoEd25519Verifier({
      importKey: () => Promise.reject(new DOMException('Unrecognized name.', 'NotSupportedError')),
      verify: () => Promise.reject(new Error('never called')),
    });
    const options = { keys, productId: vectorProductId, now: vectorNow, revokedEpochIds: [] };
    await expect(verifyWithChecks(without, (verify) => verifyArtifact(ticket, 'validation-ticket', keys, { ...options, verify }))).resolves.toMatchObject({ kind: 'validation-ticket' });
    await expect(verifyWithChecks(webCryptoEd25519Verifier(undefined), (verify) => verifyArtifact(ticket, 'validation-ticket', keys, { ...options, verify }))).resolves.toMatchObject({ kind: 'validation-ticket' });
    // S + L (non-canonical) verifies in lax engines; the strict check refuses it before WebCrypto is asked.
    const { publicKey } = keys.epochs.get(vectorEpochs.acme.epochIdHex)!;
    const message = new TextEncoder().encode('strict');
    const signature = await createNobleEd25519Signer({ privateKey: vectorEpochs.acme.seed, kid: 'k' }).sign(message);
    const order = 2n ** 252n + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let index = 63; index >= 32; index -= 1) s = (s << 8n) | BigInt(signature[index] as number);
    const malleable = signature.slice();
    let bumped = s + order;
    for (let index = 32; index < 64; index += 1) {
      malleable[index] = Number(bumped & 0xffn);
      bumped >>= 8n;
    }
    const subtle = countedSubtle();
    expect(await webCryptoEd25519Verifier(subtle).verifyAsync(publicKey, message, signature)).toBe(true);
    expect(await webCryptoEd25519Verifier(subtle).verifyAsync(publicKey, message, malleable)).toBe(false);
    expect(subtle.checks).toBe(1);
    expect(verifyEd25519(publicKey, message, malleable)).toBe(false);
  });

  it("defaults to Node's native check here, which agrees with noble", async () => {
    const { ticket, keyset, keys } = await fixtures();
    const verify = defaultSignatureVerifier();
    expect(typeof verify).toBe('function');
    const native = verify as SignatureVerifier;
    expect(verifyKeyset(keyset, vectorPins, vectorNow, { verify: native }).epochs.size).toBe(3);
    const options = { keys, productId: vectorProductId, now: vectorNow, revokedEpochIds: [], verify: native };
    expect(verifyArtifact(ticket, 'validation-ticket', keys, options).kind).toBe('validation-ticket');
    expect(() => verifyArtifact(flipLast(ticket), 'validation-ticket', keys, options)).toThrow(/signature/);
  });
});
