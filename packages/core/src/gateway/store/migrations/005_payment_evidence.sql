-- Chain evidence of a payment (gateway/payments/evidence-search.ts). An EIP-3009 authorization can only
-- execute in a block whose timestamp lies strictly between its validAfter and validBefore, so those
-- bound the search for its AuthorizationUsed event; the search keeps its progress on the row, so it
-- always finishes, however long ago the transfer happened.

-- The authorization's validAfter (unix seconds, decimal); NULL on rows claimed before this migration,
-- which are searched from block 0.
ALTER TABLE gateway_payments ADD COLUMN valid_after text;

-- The block window the authorization can have executed in, once known: the first block after
-- validAfter, and (once the chain passed validBefore) the last block before validBefore.
ALTER TABLE gateway_payments ADD COLUMN evidence_window_low bigint;
ALTER TABLE gateway_payments ADD COLUMN evidence_window_high bigint;

-- The blocks already searched, one contiguous inclusive range that grows at both ends.
ALTER TABLE gateway_payments ADD COLUMN evidence_scanned_low bigint;
ALTER TABLE gateway_payments ADD COLUMN evidence_scanned_high bigint;
ALTER TABLE gateway_payments ADD CONSTRAINT gateway_payments_evidence_scan_check CHECK (
  (evidence_scanned_low IS NULL) = (evidence_scanned_high IS NULL) AND (evidence_scanned_low IS NULL OR evidence_scanned_low <= evidence_scanned_high)
);

-- Replaced by the window above: the head block recorded at settle time only narrowed a search that could
-- still miss a transfer executed before the claim.
ALTER TABLE gateway_payments DROP COLUMN settle_head_block;
