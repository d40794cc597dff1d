-- Background jobs, claimed with FOR UPDATE SKIP LOCKED (see storage/jobs/sql-job-queue.ts).
-- Times come from the application's Clock, never from now(), so tests can drive them.
CREATE TABLE tollgate_jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CONSTRAINT tollgate_jobs_status_check CHECK (status IN ('pending', 'running', 'completed', 'dead')),
  idempotency_key text,
  -- Attempts started so far; with id it also fences a claim: complete/fail match on both.
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CONSTRAINT tollgate_jobs_max_attempts_check CHECK (max_attempts >= 1),
  run_at timestamptz NOT NULL,
  -- Lease end of a running job; after it passes the job is claimable again (its worker died).
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- One job per idempotency key and queue, forever (completed and dead jobs keep their key).
CREATE UNIQUE INDEX tollgate_jobs_idempotency_key ON tollgate_jobs (queue, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- Claim order: due pending jobs by run_at, then expired leases.
CREATE INDEX tollgate_jobs_pending ON tollgate_jobs (queue, run_at, id) WHERE status = 'pending';
CREATE INDEX tollgate_jobs_running ON tollgate_jobs (queue, locked_until) WHERE status = 'running';
