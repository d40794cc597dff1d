-- A transfer the chain shows mined is recorded even when its ref was closed after it was mined
-- (sql-payments.ts: the recovery claim passes the block time). For order mode that means:
-- - an order cancelled after its payment was mined becomes paid (the settlement effects already do so);
-- - a refund intent rejected or expired after the merchant's refund was mined becomes paid: its
--   rejection stays on the row (the signed rejected-refund receipt was issued and is not unsaid), and
--   the order's refunded amount grows by it. If another intent took the released reservation meanwhile,
--   refunded + reserved can pass the amount: the row is marked over_refunded_at instead of refusing a
--   fact (a refused write would leave the payment pending for ever). New reservations still never pass
--   the amount (createRefund's conditional update).
ALTER TABLE gateway_refunds DROP CONSTRAINT gateway_refunds_rejected_check;
ALTER TABLE gateway_refunds ADD CONSTRAINT gateway_refunds_rejected_check CHECK (
  (status <> 'rejected' OR rejected_at IS NOT NULL)
  AND (rejected_at IS NULL) = (rejection_receipt IS NULL)
  AND (rejected_at IS NULL) = (signed_rejection_receipt IS NULL)
  AND (rejected_at IS NULL OR status IN ('rejected', 'paid'))
);

ALTER TABLE gateway_orders ADD COLUMN over_refunded_at timestamptz;
ALTER TABLE gateway_orders DROP CONSTRAINT gateway_orders_refund_sum_check;
ALTER TABLE gateway_orders ADD CONSTRAINT gateway_orders_refund_sum_check CHECK (
  refund_reserved >= 0 AND refunded >= 0 AND (refund_reserved + refunded <= amount OR over_refunded_at IS NOT NULL)
);
ALTER TABLE gateway_orders DROP CONSTRAINT gateway_orders_paid_check;
ALTER TABLE gateway_orders ADD CONSTRAINT gateway_orders_paid_check CHECK (
  (status IN ('unpaid', 'cancelled')) = (payment_id IS NULL)
  AND (status IN ('unpaid', 'cancelled')) = (paid_at IS NULL)
  AND (status IN ('paid', 'partially_refunded', 'refunded') OR (refund_reserved = 0 AND refunded = 0))
  AND (status <> 'refunded' OR refunded >= amount)
);
