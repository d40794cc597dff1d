import { ConfigError } from '@tollgate/core';
import { envEnum, envInteger, parseEnv, type EnvRecord } from '@tollgate/core/config';
import { defaultEvidenceRateLimits, defaultEvidenceSettings, minEvidenceResponseBytes, type EvidenceAccessMode, type EvidenceRateLimits } from '@tollgate/core/gateway';
import { parseRateLimitVariable, parseReceiptSignersVariable, type ConfigProblem, type Parsed } from './config-parsers';

/** How the gateway serves chain evidence (`/verify-receipt`, `/tx/:txHash`, `/txs`; read by {@link evidenceConfigFromEnv}). */
export interface EvidenceConfig {
  /** `public` (anyone, rate-limited per client address) or `merchant` (merchant API keys; own payTos only). */
  access: EvidenceAccessMode;
  /** Receipt keys used before a rotation whose receipts still verify. */
  previousReceiptSigners: `0x${string}`[];
  /** Most blocks one `/txs` request walks before answering with a cursor. */
  historyScanBlocks: number;
  /** Largest JSON answer of `/txs` and `/tx/:txHash`. */
  maxResponseBytes: number;
  /** Most logs one `/tx/:txHash` answer lists. */
  maxTxLogs: number;
  /** Confirmations after which a transaction is final (cached, never re-read). */
  finalityConfirmations: number;
  /** Per-client limits of the evidence routes (and `/recover-settlement`), counted per instance in memory. */
  rateLimits: EvidenceRateLimits;
}

/**
 * Reads the chain-evidence settings. Every invalid variable is reported at once (`ConfigError`). The RPC
 * deadline (`GATEWAY_RPC_TIMEOUT_MS`) and the `eth_getLogs` span (`GATEWAY_MAX_BLOCK_SPAN`) are the
 * gateway's own, shared with settlement evidence.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `GATEWAY_EVIDENCE_ACCESS` | public | `public` or `merchant` (merchant API key; a merchant sees its own payTos only) |
 * | `GATEWAY_PREVIOUS_RECEIPT_SIGNERS` | – | comma-separated addresses of rotated-out receipt keys still accepted |
 * | `GATEWAY_HISTORY_SCAN_BLOCKS` | 20000 | blocks one `/txs` request walks at most (1–10000000) |
 * | `GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES` | 262144 | largest `/txs` page or `/tx` answer (4096–8388608) |
 * | `GATEWAY_TX_MAX_LOGS` | 100 | logs listed by `/tx/:txHash` (1–10000) |
 * | `GATEWAY_FINALITY_CONFIRMATIONS` | 64 | confirmations after which a transaction is final and cached (1–1000000) |
 * | `GATEWAY_RATE_LIMIT_VERIFY_RECEIPT` | 120/60 | `/verify-receipt` requests per client per window seconds |
 * | `GATEWAY_RATE_LIMIT_TX` | 120/60 | `/tx/:txHash` requests per client per window seconds |
 * | `GATEWAY_RATE_LIMIT_TXS` | 30/60 | `/txs` pages per client per window seconds |
 * | `GATEWAY_RATE_LIMIT_RECOVER_SETTLEMENT` | 30/60 | `/recover-settlement` requests per client per window seconds |
 *
 * @param env - Environment variables (`process.env`).
 * @returns The settings.
 * @throws ConfigError naming every invalid variable.
 * @example
 * ```ts
 * import { evidenceConfigFromEnv } from './evidence-config';
 * const evidence = evidenceConfigFromEnv({ GATEWAY_EVIDENCE_ACCESS: 'merchant' });
 * evidence.rateLimits.txHistory; // { limit: 30, windowMs: 60000 }
 * ```
 */
export function evidenceConfigFromEnv(env: EnvRecord): EvidenceConfig {
  const problems: ConfigProblem[] = [];
  const take = <T>(result: Parsed<T>): T | undefined => {
    if (result.ok) return result.value;
    problems.push(result.problem);
    return undefined;
  };
  let parsed: ReturnType<typeof parseSimple> | undefined;
  try {
    parsed = parseSimple(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const previousReceiptSigners = take(parseReceiptSignersVariable(env['GATEWAY_PREVIOUS_RECEIPT_SIGNERS']));
  const limit = (variable: string, fallback: keyof EvidenceRateLimits) => take(parseRateLimitVariable(variable, env[variable], defaultEvidenceRateLimits[fallback]));
  const verifyReceipt = limit('GATEWAY_RATE_LIMIT_VERIFY_RECEIPT', 'verifyReceipt');
  const txStatus = limit('GATEWAY_RATE_LIMIT_TX', 'txStatus');
  const txHistory = limit('GATEWAY_RATE_LIMIT_TXS', 'txHistory');
  const recoverSettlement = limit('GATEWAY_RATE_LIMIT_RECOVER_SETTLEMENT', 'recoverSettlement');
  // Every undefined value comes with a problem; the other checks only narrow the types.
  if (problems.length > 0 || !parsed || !previousReceiptSigners || !verifyReceipt || !txStatus || !txHistory || !recoverSettlement) throw new ConfigError(problems);
  return {
    access: parsed.GATEWAY_EVIDENCE_ACCESS,
    previousReceiptSigners,
    historyScanBlocks: parsed.GATEWAY_HISTORY_SCAN_BLOCKS,
    maxResponseBytes: parsed.GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES,
    maxTxLogs: parsed.GATEWAY_TX_MAX_LOGS,
    finalityConfirmations: parsed.GATEWAY_FINALITY_CONFIRMATIONS,
    rateLimits: { verifyReceipt, txStatus, txHistory, recoverSettlement },
  };
}

function parseSimple(env: EnvRecord) {
  const defaults = defaultEvidenceSettings;
  return parseEnv(env, {
    GATEWAY_EVIDENCE_ACCESS: envEnum(['public', 'merchant'] as const, { default: 'public' }),
    GATEWAY_HISTORY_SCAN_BLOCKS: envInteger({ min: 1, max: 10_000_000, default: defaults.historyScanBlocks }),
    GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES: envInteger({ min: minEvidenceResponseBytes, max: 8 * 1024 * 1024, default: defaults.maxResponseBytes }),
    GATEWAY_TX_MAX_LOGS: envInteger({ min: 1, max: 10_000, default: defaults.maxTxLogs }),
    GATEWAY_FINALITY_CONFIRMATIONS: envInteger({ min: 1, max: 1_000_000, default: defaults.finalityConfirmations }),
  });
}
