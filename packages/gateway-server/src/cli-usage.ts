/**
 * The `tollgate-gateway --help` text: what the command does, the environment variables of
 * `loadGatewayConfig` (one line each, same defaults), and where the full reference is.
 */
export const gatewayUsage = `Usage: tollgate-gateway [--help | -h]

Serves the Tollgate x402 v2 payment gateway: the merchant API (challenges, registration, API keys,
refs), the /receive route (402 negotiation and exactly-once settlement with signed receipts),
merchant notifications, chain evidence (/verify-receipt, /tx/:txHash, /txs) and /recover-settlement
(a lost settlement answer, from records and the chain, never settling again). With
GATEWAY_ORDER_MODE=on it also serves orders and refund intents (/order, /refund-receipt/rejected).
It takes no arguments: the configuration comes from the environment. With nothing configured it runs
the local dev stack (embedded PGlite database, anvil chain, test USDC, facilitator, order mode on)
under .tollgate/.

Environment [default]:
  GATEWAY_PORT                           listening port, 0 = any free port [4020]
  GATEWAY_HOST                           listening address [127.0.0.1]
  GATEWAY_DATABASE_URL or DATABASE_URL   PostgreSQL server [embedded PGlite under TOLLGATE_DATA_DIR]
  TOLLGATE_DATA_DIR                      local state directory [.tollgate]
  LOG_LEVEL                              fatal, error, warn, info, debug, trace or silent [info]
  NODE_ENV                               production requires GATEWAY_SECRET and GATEWAY_SIGNING_KEY
  GATEWAY_PUBLIC_URL                     public origin of challenges, ref and resource URLs [http://localhost:<port>]
  GATEWAY_SECRET                         32 bytes, hex or base64 [generated in <dataDir>/gateway/secret.key]
  GATEWAY_SIGNING_KEY                    secp256k1 key (0x hex) signing offers and receipts [generated in <dataDir>/gateway/signing.key]
  GATEWAY_RPC_URLS                       name=url list, e.g. base=https://…,local=http://127.0.0.1:8545
  GATEWAY_RPC_TIMEOUT_MS                 deadline of each chain read, also the time budget of a /txs page [5000]
  GATEWAY_LOCAL_USDC                     USDC address of the local network [the dev stack's TestUSDC]
  GATEWAY_EXTRA_NETWORKS                 JSON array of extra networks
  GATEWAY_FACILITATOR_URL                x402 facilitator base URL [none: settlements answer facilitator_unavailable]
  GATEWAY_FACILITATOR_HEADERS            JSON object of headers for every facilitator call (never logged)
  GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS  deadline of /verify [10000]
  GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS  deadline of /settle [60000]
  GATEWAY_MAX_TIMEOUT_SECONDS            maxTimeoutSeconds of the payment requirements [300]
  GATEWAY_MAX_BLOCK_SPAN                 blocks per eth_getLogs call (settlement evidence, /txs windows) [2000]
  GATEWAY_EVIDENCE_SCAN_BLOCKS           blocks one attempt of a payment's evidence search reads [20000]
  GATEWAY_CONFIRM_TRANSFERS              check a settlement's transfer on chain before signing its receipt [true]
  GATEWAY_STATUS_CACHE_MS                how long a 402 may reuse a ref's status, 0 = never [1000]
  GATEWAY_RATE_LIMIT_CHALLENGE           challenges per client per window seconds [10/60]
  GATEWAY_RATE_LIMIT_REGISTER            registrations per client per window seconds [10/60]
  GATEWAY_RATE_LIMIT_REF_LOOKUP          public ref lookups per client per window seconds [120/60]
  GATEWAY_RATE_LIMIT_RECEIVE             /receive requests per client per window seconds, per instance [600/60]
  GATEWAY_TRUST_PROXY                    trusted proxy hops for the client address [0]
  GATEWAY_NOTIFY_*                       merchant notification delivery (enabled, timeouts, concurrency, backoff)
  GATEWAY_EVIDENCE_ACCESS                who may call /verify-receipt, /tx, /txs, /recover-settlement: public or merchant (API key) [public]
  GATEWAY_PREVIOUS_RECEIPT_SIGNERS       comma-separated addresses of rotated-out receipt keys still accepted
  GATEWAY_HISTORY_SCAN_BLOCKS            blocks one /txs request walks at most [20000]
  GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES    largest /txs page or /tx answer [262144]
  GATEWAY_TX_MAX_LOGS                    logs listed by /tx/:txHash [100]
  GATEWAY_FINALITY_CONFIRMATIONS         confirmations after which a transaction is final and cached [64]
  GATEWAY_RATE_LIMIT_VERIFY_RECEIPT      /verify-receipt requests per client per window seconds, per instance [120/60]
  GATEWAY_RATE_LIMIT_TX                  /tx/:txHash requests per client per window seconds, per instance [120/60]
  GATEWAY_RATE_LIMIT_TXS                 /txs pages per client per window seconds, per instance [30/60]
  GATEWAY_RATE_LIMIT_RECOVER_SETTLEMENT  /recover-settlement requests per client per window seconds, per instance [30/60]
  GATEWAY_DEV_CHAIN                      1 or 0: the local dev stack [on unless production, a facilitator,
                                         a local RPC or a local USDC is configured]
  GATEWAY_ORDER_MODE                     on or off: the order and refund routes (/order, /refund-receipt/rejected)
                                         [off; on with the local dev stack unless set]

Full reference: the README, sections "Gateway: merchants and refs", "Gateway: payments",
"Merchant notifications", "Gateway: chain evidence" and "Gateway: orders and refunds"
(https://github.com/tollgate-dev/tollgate#readme).
`;

/** What the command line asks for: serve (no arguments), the usage, or a mistake. */
export type GatewayCliCommand = { readonly kind: 'serve' } | { readonly kind: 'help' } | { readonly kind: 'unknown'; readonly argument: string };

/**
 * Reads the arguments of `tollgate-gateway`: none serves, `--help` or `-h` asks for the usage, anything
 * else is a mistake (named in the answer).
 *
 * @param args - The arguments after the executable (`process.argv.slice(2)`).
 * @returns The command.
 * @example
 * ```ts
 * import { parseGatewayCliArguments } from './cli-usage';
 * parseGatewayCliArguments(['--help']); // { kind: 'help' }
 * parseGatewayCliArguments(['--port', '80']); // { kind: 'unknown', argument: '--port' }
 * ```
 */
export function parseGatewayCliArguments(args: readonly string[]): GatewayCliCommand {
  const unknown = args.find((argument) => argument !== '--help' && argument !== '-h');
  if (unknown !== undefined) return { kind: 'unknown', argument: unknown };
  return args.length === 0 ? { kind: 'serve' } : { kind: 'help' };
}
