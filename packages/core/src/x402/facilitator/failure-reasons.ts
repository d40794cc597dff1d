/**
 * Facilitator verdicts that depend only on the payload and the requirements — never on chain state,
 * the clock or a broadcast — so they prove that nothing was, and nothing will be, executed for this
 * payload by the facilitator that gave them. Calibrated on the official `@x402/evm` 2.27 exact scheme
 * (each is returned before `transferWithAuthorization` is sent; none can come out of its
 * `parseEip3009TransferError`, which maps errors thrown while sending) and the x402 core's own
 * refusals. Everything else (nonce used, balance, simulation, transaction failed, time windows,
 * unknown reasons of other facilitators) may mean the transfer happened or still can.
 *
 * @example
 * ```ts
 * import { payloadOnlyFailureReasons } from '@tollgate/core/x402';
 * payloadOnlyFailureReasons.has('invalid_exact_evm_signature'); // true
 * ```
 */
export const payloadOnlyFailureReasons: ReadonlySet<string> = new Set([
  // @x402/evm exact scheme, checks of the payload against the requirements.
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_missing_eip712_domain',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_authorization_value',
  'invalid_exact_evm_failed_to_parse_signature',
  'invalid_exact_evm_token_name_mismatch',
  'invalid_exact_evm_token_version_mismatch',
  'invalid_exact_evm_eip3009_not_supported',
  'eip6492_factory_not_allowed',
  'unsupported_payload_type',
  // x402 core and the spec's generic reasons: the payload never reached a scheme.
  'invalid_payload',
  'invalid_payment_requirements',
  'invalid_scheme',
  'unsupported_scheme',
  'invalid_network',
  'invalid_x402_version',
]);

/**
 * How to read a facilitator's refusal of a payment:
 * - `payload`: the payload itself is wrong ({@link payloadOnlyFailureReasons}): nothing happened on
 *   chain and nothing can happen through this facilitator; the refusal is final;
 * - `chain`: the refusal may depend on chain state or time — including "nonce already used", which can
 *   mean this very payment was already executed (by the facilitator's earlier attempt, or by whoever
 *   else holds the signature): only chain evidence tells.
 *
 * @param reason - `invalidReason` of a verify answer or `errorReason` of a settle answer.
 * @returns The kind of refusal.
 *
 * @example
 * ```ts
 * import { facilitatorRefusalKind } from '@tollgate/core/x402';
 * facilitatorRefusalKind('invalid_exact_evm_nonce_already_used'); // 'chain'
 * ```
 */
export function facilitatorRefusalKind(reason: string | undefined): 'payload' | 'chain' {
  return reason !== undefined && payloadOnlyFailureReasons.has(reason) ? 'payload' : 'chain';
}
