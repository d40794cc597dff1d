/**
 * `@tollgate/client-sdk`: the desktop client of the license protocol. Works in Node and in browsers
 * (no Node-only imports): verify keysets against pinned roots, verify signed artifacts, fetch the
 * keyset with HTTP caching, and follow the revocation feed.
 *
 * @packageDocumentation
 */
export { verifyKeyset, verifyArtifact, decodePins, type PinnedRoot, type VerifyArtifactOptions } from './verify';
export { createKeysetFetcher, type KeysetFetcher, type KeysetFetcherOptions } from './keyset-fetcher';
export { createRevocationFollower, type RevocationFollower, type RevocationFollowerOptions, type RevocationFollowerState } from './revocation-follower';
export { LicenseRequestError, RevocationFeedError, type RevocationFeedErrorCode } from './errors';
export { maxAgeSeconds, type FetchFunction } from './http';
export type { VerifiedKeyset, VerifiedArtifact, VerifiedEpoch, ArtifactKind, ArtifactPayloads, ArtifactError, ArtifactErrorReason } from '@tollgate/core';
