import type { CliStreams } from './output';

/** Progress of a long operation, written to stderr so stdout stays the command's result. */
export interface Progress {
  /** Reports `done` (of `total`, when known), at most about once a second plus the final call. */
  update(done: number, total?: number): void;
  /** Reports the final count (unless the last line already said it). */
  finish(done: number, total?: number): void;
}

/**
 * Line-based progress on stderr: `tollgate-admin: <label> 1200/5000`. Lines rather than a redrawn line
 * with `\r`, so logs of cron jobs and CI stay readable; throttled so a fast stream does not flood them.
 *
 * @param streams - Where to write (stderr only).
 * @param label - What is being counted, e.g. `rows exported`.
 * @param now - Clock in milliseconds (tests inject one).
 * @returns The progress reporter.
 * @example
 * ```ts
 * const progress = createProgress(streams, 'licenses issued');
 * progress.update(3, 10);
 * ```
 */
export function createProgress(streams: Pick<CliStreams, 'stderr'>, label: string, now: () => number = Date.now): Progress {
  let lastWritten = Number.NEGATIVE_INFINITY;
  let lastLine = '';
  const write = (done: number, total: number | undefined) => {
    lastWritten = now();
    lastLine = `tollgate-admin: ${label} ${done}${total === undefined ? '' : `/${total}`}\n`;
    streams.stderr(lastLine);
  };
  return {
    update(done, total) {
      if (now() - lastWritten >= 1000) write(done, total);
    },
    finish(done, total) {
      // The last update may already have said exactly this.
      if (lastLine !== `tollgate-admin: ${label} ${done}${total === undefined ? '' : `/${total}`}\n`) write(done, total);
    },
  };
}
