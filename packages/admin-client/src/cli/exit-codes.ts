/**
 * The exit statuses of `tollgate-admin`, part of its contract with ops scripts (documented in `--help`
 * and the README). Scripts branch on them, so a value never changes meaning.
 */
export const exitCodes = {
  /** The command did what it says. */
  ok: 0,
  /** The server refused the call (its error code and message are printed) or answered something unreadable. */
  apiError: 1,
  /** The command line is wrong: unknown command or option, missing value, no URL or token. Nothing was sent. */
  usage: 2,
  /** The server could not be reached, or did not answer in time. */
  network: 3,
  /** A destructive command ran as a dry run: the preview is printed, nothing was changed. Add `--confirm`. */
  dryRun: 4,
  /** A check ran and failed: `audit verify` found the chain broken. */
  checkFailed: 5,
} as const;

/** One of {@link exitCodes}. */
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** The exit status lines of the usage text. */
export const exitCodesUsage = `Exit status:
  0  success
  1  API error: the server refused the call (its error code and message are printed on stderr)
  2  usage error: unknown command or option, missing argument, no --url or no token; nothing was sent
  3  network error or timeout: the server was not reached or did not answer in time
  4  dry run: a destructive command showed what it would do and changed nothing (add --confirm)
  5  check failed: audit verify found the audit chain broken
`;
