/**
 * The pure half of the pay page's browser script, as JavaScript source: amounts, base64 JSON, the
 * EIP-3009 typed data, the x402 payload and the sentences shown for refusals. It is served inside the
 * script file (see `pay-assets.ts`) and evaluated as is by the unit tests, so what is tested is what
 * browsers run. Plain ES2020 without modules: no build step stands between this text and the browser.
 *
 * Rules for editing: no template literals (this is one), no DOM access, no globals but `TextEncoder`,
 * `TextDecoder`, `atob`, `btoa`, `crypto` and `BigInt`.
 */
export const payClientHelpersSource = String.raw`
var MAX_UINT256 = BigInt('0x' + 'f'.repeat(64));

// Same rules as formatTokenAmount in usdc-amount.ts: grouped integer part, 2 to decimals fraction digits.
function formatTokenAmount(digits, decimals) {
  var padded = String(digits).padStart(decimals + 1, '0');
  var whole = padded.slice(0, padded.length - decimals).replace(/^0+(?=[0-9])/, '');
  var fraction = padded.slice(padded.length - decimals).replace(/0+$/, '').padEnd(Math.min(2, decimals), '0');
  var grouped = whole.replace(/\B(?=([0-9]{3})+$)/g, ',');
  return fraction === '' ? grouped : grouped + '.' + fraction;
}

// The payer's decimal amount to atomic units, exactly (string arithmetic, never a float).
function parseTokenInput(text, decimals) {
  var value = String(text).trim();
  if (value === '') return { ok: false, message: 'Enter the amount to pay.' };
  if (value.indexOf(',') !== -1) {
    return { ok: false, message: 'Use a dot for decimals and no thousands separators, for example 1250.50.' };
  }
  var match = /^([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (match === null || (match[1] === '' && !match[2])) {
    return { ok: false, message: 'Enter the amount as digits with an optional decimal dot, for example 12.50.' };
  }
  var fraction = match[2] || '';
  if (fraction.length > decimals) {
    return { ok: false, message: 'USDC has ' + decimals + ' decimal places: enter at most ' + decimals + ' digits after the dot.' };
  }
  var atomic = (match[1] + fraction.padEnd(decimals, '0')).replace(/^0+/, '');
  if (atomic === '') return { ok: false, message: 'Enter an amount greater than zero.' };
  if (atomic.length > 78 || BigInt(atomic) > MAX_UINT256) return { ok: false, message: 'This amount is too large.' };
  return { ok: true, atomic: atomic };
}

// x402 headers carry base64 of UTF-8 JSON; btoa alone would throw on any non-Latin-1 description.
function encodeJsonBase64(value) {
  var bytes = new TextEncoder().encode(JSON.stringify(value));
  var binary = '';
  for (var index = 0; index < bytes.length; index += 1) binary += String.fromCharCode(bytes[index]);
  return btoa(binary);
}

function decodeJsonBase64(text) {
  var normalized = String(text).replace(/-/g, '+').replace(/_/g, '/');
  while (normalized.length % 4 !== 0) normalized += '=';
  var binary = atob(normalized);
  var bytes = new Uint8Array(binary.length);
  for (var index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
}

function randomHex(byteCount) {
  var bytes = crypto.getRandomValues(new Uint8Array(byteCount));
  var hex = '0x';
  for (var index = 0; index < bytes.length; index += 1) hex += bytes[index].toString(16).padStart(2, '0');
  return hex;
}

// Refuses terms that differ from what the page showed: the payer approves what they read.
function checkRequirements(accepted, expected) {
  var fine = accepted && typeof accepted === 'object' && accepted.scheme === 'exact' &&
    accepted.network === 'eip155:' + expected.chainId && typeof accepted.payTo === 'string' &&
    accepted.payTo.toLowerCase() === String(expected.payTo).toLowerCase() && accepted.amount === expected.amount &&
    /^0x[0-9a-fA-F]{40}$/.test(String(accepted.asset)) && Number.isSafeInteger(accepted.maxTimeoutSeconds) &&
    accepted.maxTimeoutSeconds > 0 && accepted.extra && typeof accepted.extra.name === 'string' &&
    typeof accepted.extra.version === 'string';
  return fine ? null : 'The payment service offered terms that differ from this page, so nothing was signed. Reload the page and check it again.';
}

// The EIP-3009 authorization, valid from 10 minutes ago (clock skew) until the offer's timeout, as the
// official x402 client signs it. Numbers are decimal strings, as x402 payloads carry them.
function buildAuthorization(accepted, from, nowSeconds, nonce) {
  return {
    from: from,
    to: accepted.payTo,
    value: accepted.amount,
    validAfter: String(nowSeconds - 600),
    validBefore: String(nowSeconds + accepted.maxTimeoutSeconds),
    nonce: nonce,
  };
}

// The time to sign by: the payment service's, from the Date header of its 402 answer, so a payer whose
// device clock is minutes off still signs an authorization the service accepts (it refuses one valid for
// longer than the offer's timeout plus 60 s of skew). The device clock only when the header is missing.
function paymentNowSeconds(dateHeader, localNowMs) {
  var serverMs = typeof dateHeader === 'string' ? Date.parse(dateHeader) : NaN;
  return Math.floor((Number.isFinite(serverMs) ? serverMs : localNowMs) / 1000);
}

function transferTypedData(accepted, chainId, authorization) {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    domain: { name: accepted.extra.name, version: accepted.extra.version, chainId: chainId, verifyingContract: accepted.asset },
    message: authorization,
  };
}

// The payment-identifier makes a resent header idempotent: the gateway answers it from its record.
function paymentPayload(required, accepted, authorization, signature, paymentId) {
  return {
    x402Version: 2,
    resource: required.resource,
    accepted: accepted,
    payload: { authorization: authorization, signature: signature },
    extensions: { 'payment-identifier': { info: { id: paymentId } } },
  };
}

function walletErrorCode(error) {
  return error !== null && typeof error === 'object' && typeof error.code === 'number' ? error.code : undefined;
}

// EIP-1193 provider errors (and EIP-1474 -32002) as sentences.
function describeWalletError(error, networkLabel) {
  var code = walletErrorCode(error);
  if (code === 4001) return 'You declined the request in your wallet. Nothing was paid.';
  if (code === 4100) return 'Your wallet did not let this page use your account. Connect your wallet and try again.';
  if (code === 4200) return 'Your wallet cannot sign this kind of payment (EIP-712 typed data). Try another wallet.';
  if (code === 4900 || code === 4901) return 'Your wallet is not connected to ' + networkLabel + '. Check its network, then try again.';
  if (code === -32002) return 'Your wallet already has a request waiting. Open your wallet to answer it.';
  var message = error !== null && typeof error === 'object' && typeof error.message === 'string' ? error.message.slice(0, 200) : '';
  return 'Your wallet reported a problem' + (message === '' ? '.' : ': ' + message);
}

// Gateway error envelopes as sentences; the JSON itself is never shown.
function describeGatewayError(status, body, networkLabel) {
  var error = body !== null && typeof body === 'object' && body.error !== null && typeof body.error === 'object' ? body.error : {};
  var details = error.details !== null && typeof error.details === 'object' ? error.details : {};
  var reason = typeof details.reason === 'string' ? details.reason : '';
  switch (error.code) {
    case 'ref_expired': return 'This payment link has expired. Ask the merchant for a new one. Nothing was paid.';
    case 'ref_revoked': return 'The merchant cancelled this payment link. Nothing was paid.';
    case 'payto_revoked': return 'The merchant no longer accepts payments at this address. Nothing was paid.';
    case 'not_found': return 'This payment link does not exist. Nothing was paid.';
    case 'payment_verification_failed':
    case 'settlement_failed':
      if (/insufficient/i.test(reason)) return 'Your wallet does not hold enough USDC on ' + networkLabel + ' for this payment. Nothing was paid.';
      if (/valid_?before|valid_?after|expired/i.test(reason)) return 'Your signature is no longer valid. Press Pay to sign again. Nothing was paid.';
      if (/^(not_yet_valid|too_soon|too_late)$/.test(reason)) return 'The time on your device differs from the payment service\u2019s, so your signature was refused. Check the date and time settings of your device, then press Pay again. Nothing was paid.';
      return error.code === 'settlement_failed'
        ? 'The payment did not go through on the network. Nothing was paid.'
        : 'The payment service could not verify your signed payment. Nothing was paid.';
    case 'conflict': return 'This payment was already sent with different details. Reload the page and try again.';
    case 'rate_limited':
      return 'Too many attempts. Wait ' + (Number.isSafeInteger(details.retryAfterSeconds) ? details.retryAfterSeconds + ' seconds' : 'a minute') + ', then press Pay again.';
    case 'rpc_unavailable':
    case 'facilitator_unavailable':
    case 'request_timeout':
    case 'internal_error':
      return 'The payment service is unavailable right now. Press Pay again in a minute: you will not pay twice.';
    case 'invalid_request':
      if (details.field === 'amount') return 'The payment service refused this amount. Check it and try again.';
      break;
  }
  var message = typeof error.message === 'string' ? error.message.slice(0, 300) : '';
  return message === '' ? 'The payment service answered with an unexpected status (' + status + '). Nothing was paid.' : 'The payment service refused the payment: ' + message;
}

// Answers worth asking again with the same signed header (the outcome is not final yet).
function isRetryable(status) {
  return status === 408 || status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}
`;

/** The functions {@link payClientHelpersSource} declares (the unit tests evaluate the source and call them). */
export const payClientHelperNames = [
  'formatTokenAmount',
  'parseTokenInput',
  'encodeJsonBase64',
  'decodeJsonBase64',
  'randomHex',
  'checkRequirements',
  'buildAuthorization',
  'paymentNowSeconds',
  'transferTypedData',
  'paymentPayload',
  'walletErrorCode',
  'describeWalletError',
  'describeGatewayError',
  'isRetryable',
] as const;
