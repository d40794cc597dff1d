/**
 * License artifact benchmark (`npm run bench`): signing and verifying a validation ticket with Node's
 * native Ed25519 against @noble/curves, interleaved over several rounds, and keyset verification time
 * on the client. Prints medians and the native/noble ratios; it asserts nothing.
 */
import { createNobleEd25519Signer } from '@tollgate/core';
import { verifyEd25519 } from '@tollgate/core/crypto';
import { encodeKeyset, signArtifact, verifyArtifact, verifyKeyset } from '@tollgate/core/license';
import { createNodeEd25519Signer, verifyEd25519Node } from '@tollgate/core/node';
import { verifyWithChecks, webCryptoEd25519Verifier } from '@tollgate/client-sdk';
import { epochCertificateFor, samplePayloads, vectorEpochs, vectorNow, vectorPins, vectorProductId } from '../packages/core/test/vectors/license-fixtures';
import { formatOps, interleaved, median } from './license/measure';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);
const sliceMs = Number(process.env['BENCH_SLICE_MS'] ?? 400);

export default async function bench(): Promise<void> {
  const { acme, global, successor } = vectorEpochs;
  const payload = (await samplePayloads())['validation-ticket'];
  const native = createNodeEd25519Signer({ privateKey: acme.seed, kid: acme.epochIdHex });
  const noble = createNobleEd25519Signer({ privateKey: acme.seed, kid: acme.epochIdHex });
  const ticket = await signArtifact('validation-ticket', payload, { signer: native, productId: vectorProductId });
  if (Buffer.compare(ticket, await signArtifact('validation-ticket', payload, { signer: noble, productId: vectorProductId })) !== 0) {
    throw new Error('native and noble signatures differ: Ed25519 must be deterministic');
  }
  const keys = { epochs: new Map([[acme.epochIdHex, acme]]) };
  // The client SDK's WebCrypto path (browsers): asynchronous checks driven through the synchronous verifier.
  const webCrypto = webCryptoEd25519Verifier();
  const keysetBytes = encodeKeyset({ protoVersion: 1, certificates: await Promise.all([global, acme, successor].map((epoch) => epochCertificateFor(epoch))), revocationEpoch: 12 });

  process.stdout.write(`\nLicense artifacts: validation ticket (${ticket.length} bytes), ${rounds} interleaved rounds of ${sliceMs} ms\n`);
  const results = await interleaved(
    {
      'sign native': () => signArtifact('validation-ticket', payload, { signer: native, productId: vectorProductId }),
      'sign noble': () => signArtifact('validation-ticket', payload, { signer: noble, productId: vectorProductId }),
      'verify native': () => verifyArtifact(ticket, 'validation-ticket', { keys, productId: vectorProductId, now: vectorNow, verify: verifyEd25519Node }),
      'verify noble': () => verifyArtifact(ticket, 'validation-ticket', { keys, productId: vectorProductId, now: vectorNow, verify: verifyEd25519 }),
      'verify webcrypto (SDK)': () => verifyWithChecks(webCrypto, (verify) => verifyArtifact(ticket, 'validation-ticket', { keys, productId: vectorProductId, now: vectorNow, verify })),
      'keyset (3 certificates) noble': () => verifyKeyset(keysetBytes, vectorPins, vectorNow),
      'keyset (3 certificates) native': () => verifyKeyset(keysetBytes, vectorPins, vectorNow, { verify: verifyEd25519Node }),
    },
    { rounds, sliceMs },
  );

  const medians = Object.fromEntries(Object.entries(results).map(([name, values]) => [name, median(values)]));
  for (const [name, values] of Object.entries(results)) {
    process.stdout.write(`  ${name.padEnd(32)} median ${formatOps(medians[name] as number).padStart(14)}   rounds: ${values.map((value) => Math.round(value)).join(', ')}\n`);
  }
  const ratio = (a: string, b: string) => ((medians[a] as number) / (medians[b] as number)).toFixed(2);
  process.stdout.write(`  ratio native/noble: sign ${ratio('sign native', 'sign noble')}x, verify ${ratio('verify native', 'verify noble')}x\n`);
  const ms = (name: string) => (1000 / (medians[name] as number)).toFixed(3);
  process.stdout.write(`  client ticket verification: native ${ms('verify native')} ms (the SDK's default on Node), webcrypto ${ms('verify webcrypto (SDK)')} ms, noble ${ms('verify noble')} ms\n`);
  process.stdout.write(`  client keyset verification (3 certificates): native ${ms('keyset (3 certificates) native')} ms, noble ${ms('keyset (3 certificates) noble')} ms\n`);
}
