-- x402 payments (gateway/payments): one row per claimed payment, taken before any facilitator call.
-- States: processing (a lease holder verifies and settles) → settled | pending | failed, and
-- pending (settle was called, outcome unknown) → settled | failed. A processing row whose settle never
-- started is deleted when released (verify refused, facilitator unreachable), so the payer may retry.
-- Times come from the application's Clock, never from now(), so tests can drive them.
CREATE TABLE gateway_payments (
  -- The client's payment-identifier id, or `auth:<chainId>:<payer>:<nonce>` when it sent none
  -- (the colon keeps both namespaces apart: client ids never contain one).
  payment_id text PRIMARY KEY,
  ref_id text NOT NULL REFERENCES gateway_refs (id),
  merchant_id text NOT NULL REFERENCES gateway_merchants (id),
  network text NOT NULL,
  chain_id bigint NOT NULL,
  pay_to text NOT NULL,
  -- EIP-55 checksummed, and the nonce lowercase: one spelling per authorization for the unique key.
  payer text NOT NULL,
  amount text NOT NULL,
  nonce text NOT NULL,
  valid_before text NOT NULL,
  -- sha256 of the RFC 8785 canonical JSON of the decoded PAYMENT-SIGNATURE payload.
  fingerprint text NOT NULL,
  state text NOT NULL CONSTRAINT gateway_payments_state_check CHECK (state IN ('processing', 'pending', 'settled', 'failed')),
  lease_token text,
  lease_until timestamptz,
  -- Set (by the lease holder) right before the facilitator's settle is called: from then on the
  -- transfer may exist on chain, so the claim is never released and settle is never called again.
  settle_started_at timestamptz,
  tx_hash text,
  block_number text,
  receipt_hash text CONSTRAINT gateway_payments_receipt_hash_key UNIQUE,
  receipt text,
  signed_receipt text,
  -- The stored answer of a final payment, replayed byte for byte: outcome, PAYMENT-RESPONSE, body.
  answer_outcome text CONSTRAINT gateway_payments_answer_outcome_check CHECK (answer_outcome IN ('settled', 'failed')),
  answer_header text,
  answer_body text,
  error_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  -- Two payment ids over one EIP-3009 authorization are a conflict.
  CONSTRAINT gateway_payments_authorization_key UNIQUE (chain_id, payer, nonce),
  CONSTRAINT gateway_payments_lease_check CHECK ((state = 'processing') = (lease_token IS NOT NULL AND lease_until IS NOT NULL)),
  CONSTRAINT gateway_payments_answer_check CHECK (
    (state IN ('settled', 'failed')) = (answer_outcome IS NOT NULL AND answer_header IS NOT NULL AND answer_body IS NOT NULL AND completed_at IS NOT NULL)
  ),
  CONSTRAINT gateway_payments_settled_check CHECK (
    state <> 'settled' OR (answer_outcome = 'settled' AND tx_hash IS NOT NULL AND receipt IS NOT NULL AND receipt_hash IS NOT NULL AND signed_receipt IS NOT NULL)
  )
);

-- A ref's payments, oldest first (receipts and recovery look them up by ref).
CREATE INDEX gateway_payments_ref ON gateway_payments (ref_id, created_at);

-- Claims whose lease ended (their holder died), found by the recovery sweep.
CREATE INDEX gateway_payments_leases ON gateway_payments (lease_until) WHERE state = 'processing';
