/**
 * The JSON shape of `license-v1.json`. Every byte string is lower-case hex; every time is unix seconds.
 * Field names are snake_case so implementations in other languages can map them directly.
 */
import type { ArtifactErrorReason } from '@tollgate/core/license';

export interface VectorRoot {
  seed: string;
  public_key: string;
  /** First 8 bytes of SHA-256(public_key): the kid of the certificates it signs. */
  key_id: string;
  /** SHA-256(public_key): field 6 of the certificates it signs. */
  digest: string;
}

export interface VectorEpoch {
  seed: string;
  epoch_id: string;
  public_key: string;
  not_before: number;
  not_after: number;
  product_scope: string | null;
  root: string;
  /** The certificate envelope signed by `root`. */
  certificate: string;
}

export interface ArtifactVector {
  name: string;
  kind: string;
  product_id: string | null;
  /** A root name for epoch certificates, an epoch name otherwise. */
  signer: string;
  payload_diagnostic: string;
  payload: string;
  protected: string;
  external_aad: string;
  sig_structure: string;
  signature: string;
  envelope: string;
}

export interface RequestVector {
  name: string;
  kind: string;
  device: string;
  request_diagnostic: string;
  /** The request map without key 15, canonically encoded: the detached COSE payload. */
  signed_payload: string;
  protected: string;
  external_aad: string;
  proof_message: string;
  proof: string;
  encoded: string;
}

export interface MessageVector {
  name: string;
  kind: string;
  diagnostic: string;
  encoded: string;
}

export interface KeysetVector {
  name: string;
  encoded: string;
  pinned_roots: string[];
  now: number;
  expected: { epochs: string[]; expired: string[]; revocation_epoch: number } | { error: ArtifactErrorReason };
}

/** How a negative vector is checked. */
export type NegativeCheck = 'artifact' | 'certificate' | 'device_request';

export interface NegativeVector {
  name: string;
  description: string;
  check: NegativeCheck;
  kind: string;
  /** Product the verifier expects (artifact checks of product-bound kinds). */
  product_id: string | null;
  input: string;
  /** artifact: epoch names whose keys the verifier holds. */
  keys: string[];
  /** artifact: epoch names revoked by the feed. */
  revoked_epochs: string[];
  /** certificate: root names pinned. */
  pinned_roots: string[];
  /** device_request: the device whose key checks the proof. */
  device: string | null;
  now: number;
  expected_error: ArtifactErrorReason;
}

export interface LicenseVectorFile {
  format: 'tollgate-license-test-vectors';
  version: 1;
  about: string[];
  now: number;
  roots: Record<string, VectorRoot>;
  epochs: Record<string, VectorEpoch>;
  devices: Record<string, { seed: string; public_key: string }>;
  artifacts: ArtifactVector[];
  device_requests: RequestVector[];
  messages: MessageVector[];
  keysets: KeysetVector[];
  negative: NegativeVector[];
}
