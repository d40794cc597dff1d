-- Rate-limit state shared by every instance: one row per key, GCRA (see storage/rate-limit/gcra.ts).
-- Times are integers scaled by the key's limit (milliseconds × rate_limit), so the emission interval
-- window_ms / rate_limit is exact: 3 requests per 1000 ms never lose a request to rounding.
CREATE TABLE tollgate_rate_limits (
  key text PRIMARY KEY,
  -- Theoretical arrival time of the next request, in milliseconds × rate_limit.
  tat bigint NOT NULL,
  rate_limit integer NOT NULL,
  window_ms bigint NOT NULL,
  -- When the bucket is full again (ceil(tat / rate_limit), in ms): rows past it carry no state.
  refilled_at_ms bigint NOT NULL,
  -- Whether the latest consume was allowed (RETURNING cannot see the row's previous tat).
  allowed boolean NOT NULL
);

CREATE INDEX tollgate_rate_limits_refilled ON tollgate_rate_limits (refilled_at_ms);
