-- Recovery of pending payments (gateway/payments/recovery.ts).
-- The chain's head block as the gateway last knew it when settle was started (read alongside the
-- facilitator's verify; NULL when no RPC answered in time): the settlement's logs are searched from a
-- little below it, never from block 0.
ALTER TABLE gateway_payments ADD COLUMN settle_head_block bigint;

-- The current settlement-recovery job of a pending payment: generation 0 is `recovery:<paymentId>`,
-- generation n > 0 `recovery:<paymentId>:<n>`. When that job used all its attempts (dead) or is gone,
-- the recovery sweep moves to the next generation and enqueues its job, so a pending payment always
-- ends up with a live job.
ALTER TABLE gateway_payments ADD COLUMN recovery_generation integer NOT NULL DEFAULT 0
  CONSTRAINT gateway_payments_recovery_generation_check CHECK (recovery_generation >= 0);

-- Pending payments, least recently changed first, for that sweep.
CREATE INDEX gateway_payments_pending ON gateway_payments (updated_at, payment_id) WHERE state = 'pending';
