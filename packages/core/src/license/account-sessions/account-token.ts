/** The account an access token from `POST /v1/account/login` (or `/refresh`) belongs to. */
export interface AccountTokenIdentity {
  readonly accountId: string;
  readonly vendorId: string;
  readonly productId: string;
}

/**
 * The port the client protocol resolves an activation's account credential (`{1: access_token}`) through.
 * Implemented over SQL by the account-sessions module (tokens are stored only as keyed hashes).
 */
export interface AccountTokenVerifier {
  /**
   * The account whose live (unexpired, unrevoked) access token this is, for `productId`; `undefined`
   * otherwise (the caller answers 1000 without saying which check failed).
   */
  verifyAccessToken(productId: string, accessToken: Uint8Array): Promise<AccountTokenIdentity | undefined>;
}
