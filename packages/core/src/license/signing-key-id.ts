import { hexDecode, isHexId, type Signer } from '../crypto';
import { ed25519Lengths } from '../crypto';

/**
 * Reads the 8-byte key id a signer publishes: its `kid` must be 16 lower-case hex digits (an epoch id,
 * or a root key id for the root signer). Anything else is a wiring mistake, so it throws `TypeError`.
 *
 * @param signer - The signer.
 * @returns The 8 kid bytes for the protected header.
 */
export function signerKeyId(signer: Signer): Uint8Array {
  if (typeof signer !== 'object' || signer === null || typeof signer.sign !== 'function') throw new TypeError('signer must implement the Signer port');
  if (signer.alg !== 'EdDSA') throw new TypeError('license artifacts are signed with EdDSA (Ed25519)');
  if (!isHexId(signer.kid, 8)) throw new TypeError('a license signer kid is 16 lower-case hex digits (an epoch id or a root key id)');
  return hexDecode(signer.kid);
}

/**
 * Signs `message` and checks the signer kept the port's contract (a 64-byte signature).
 *
 * @param signer - The signer.
 * @param message - The Sig_structure bytes.
 * @returns The signature.
 */
export async function signChecked(signer: Signer, message: Uint8Array): Promise<Uint8Array> {
  const signature = await signer.sign(message);
  if (!(signature instanceof Uint8Array) || signature.length !== ed25519Lengths.signature) {
    throw new TypeError('the signer returned something other than a 64-byte signature');
  }
  return signature;
}
