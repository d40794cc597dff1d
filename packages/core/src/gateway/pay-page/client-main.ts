/**
 * The DOM half of the pay page's browser script, as JavaScript source: it reads the ref from the
 * `data-` attributes of `<main id="pay">` (rendered by `render-pay-page.ts`), talks to the injected
 * EIP-1193 wallet and to `/receive`, and writes every message with `textContent` (the page's CSP
 * requires Trusted Types, so an `innerHTML` would throw). It uses the helpers of `client-helpers.ts`,
 * which precede it in the served file.
 *
 * The flow is one explicit state machine: `idle` (no account) → `connected` (an account on the right
 * chain) → `paid`; a request in flight marks the page busy and further presses are ignored. A signed
 * payment whose answer never arrived stays in `submission` and is resent as is by the next press, so a
 * dropped connection never makes the payer sign (and pay) twice.
 */
export const payClientMainSource = String.raw`
var NO_WALLET = 'No wallet was found in this browser. Install a browser wallet, or open this page in the browser of your wallet app, then reload the page.';
var UNREACHABLE = 'The payment service could not be reached. Check your connection and try again. Nothing was paid.';
var DROPPED = 'The connection dropped before the payment service answered. Press Pay again to ask once more: the same signature is sent, so you cannot pay twice.';

function startPayPage() {
  var root = document.getElementById('pay');
  if (root === null) return;
  var data = root.dataset;
  var decimals = Number(data.decimals);
  var chainId = Number(data.chainId);
  var networkLabel = data.networkLabel;
  var fixedAmount = data.amount || null;
  var form = document.getElementById('pay-form');
  var amountInput = document.getElementById('amount');
  var amountError = document.getElementById('amount-error');
  var connectButton = document.getElementById('connect');
  var payButton = document.getElementById('pay-button');
  var accountLine = document.getElementById('account');
  var statusLine = document.getElementById('status');
  var problemLine = document.getElementById('problem');
  var flow = { state: 'idle', account: null, busy: false, submission: null };

  function wallet() {
    var candidate = window.ethereum;
    return candidate && typeof candidate.request === 'function' ? candidate : null;
  }
  function say(text) { statusLine.textContent = text; }
  function refuse(text) { statusLine.textContent = ''; problemLine.textContent = text; }
  function setBusy(busy) {
    flow.busy = busy;
    root.setAttribute('aria-busy', String(busy));
    connectButton.setAttribute('aria-disabled', String(busy));
    payButton.setAttribute('aria-disabled', String(busy));
  }
  function setAccount(account) {
    flow.account = account;
    flow.state = account === null ? 'idle' : 'connected';
    accountLine.hidden = account === null;
    accountLine.textContent = account === null ? '' : 'Paying from ' + account;
    connectButton.textContent = account === null ? 'Connect wallet' : 'Wallet connected';
  }
  function showAmountError(message) {
    amountError.textContent = message;
    amountError.hidden = message === '';
    amountInput.setAttribute('aria-invalid', String(message !== ''));
  }
  function describeThrown(error) {
    if (walletErrorCode(error) !== undefined) return describeWalletError(error, networkLabel);
    return 'Something went wrong on this page. Reload it and try again.';
  }
  // Every press goes through here: one request at a time, and whatever fails becomes a sentence.
  function guarded(action) {
    return function (event) {
      if (event) event.preventDefault();
      if (flow.busy || flow.state === 'paid') return;
      setBusy(true);
      problemLine.textContent = '';
      action().catch(function (error) { refuse(describeThrown(error)); }).finally(function () { setBusy(false); });
    };
  }
  async function readJson(response) {
    try { return await response.json(); } catch (error) { return null; }
  }
  function chainOf(hex) { return parseInt(String(hex), 16); }

  async function ensureChain(provider) {
    var current = chainOf(await provider.request({ method: 'eth_chainId' }));
    if (current === chainId) return true;
    say('Your wallet is on another network (chain ' + current + '). Asking it to switch to ' + networkLabel + '…');
    try {
      await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x' + chainId.toString(16) }] });
    } catch (error) {
      var code = walletErrorCode(error);
      if (code === 4902) { refuse('Your wallet does not know ' + networkLabel + '. Add this network in your wallet, then press Pay again.'); return false; }
      if (code === 4001) { refuse('You declined to switch networks. Switch your wallet to ' + networkLabel + ' to pay.'); return false; }
      throw error;
    }
    if (chainOf(await provider.request({ method: 'eth_chainId' })) !== chainId) {
      refuse('Your wallet is still on another network. Switch it to ' + networkLabel + ' to pay.');
      return false;
    }
    say('Your wallet is on ' + networkLabel + '.');
    return true;
  }

  async function connect(provider) {
    if (flow.account === null) {
      say('Waiting for your wallet to share an account…');
      var accounts = await provider.request({ method: 'eth_requestAccounts' });
      if (!Array.isArray(accounts) || typeof accounts[0] !== 'string') { refuse('Your wallet did not share an account.'); return false; }
      setAccount(accounts[0]);
      say('Wallet connected.');
    }
    return ensureChain(provider);
  }

  function showReceipt(body, submission) {
    var extension = body.extensions && body.extensions['offer-receipt'];
    var receipt = extension && extension.receipt ? extension.receipt : {};
    var rows = [
      ['Amount', formatTokenAmount(submission.amount, decimals) + ' USDC'],
      ['Paid to', receipt.payTo, true],
      ['Paid from', body.payer, true],
      ['Network', networkLabel],
      ['Transaction', body.transaction, true],
      ['Block', receipt.blockNumber],
      ['Receipt issued', Number.isSafeInteger(receipt.issuedAt) ? new Date(receipt.issuedAt * 1000).toISOString().replace('.000Z', 'Z') : undefined],
      ['Payment id', receipt.paymentId, true],
      ['Invoice', receipt.invoiceId],
    ];
    var list = document.getElementById('receipt-facts');
    rows.forEach(function (row) {
      if (typeof row[1] !== 'string' || row[1] === '') return;
      var item = document.createElement('div');
      var term = document.createElement('dt');
      var value = document.createElement('dd');
      var text = document.createElement(row[2] ? 'code' : 'span');
      term.textContent = row[0];
      text.textContent = row[1];
      value.appendChild(text);
      item.appendChild(term);
      item.appendChild(value);
      list.appendChild(item);
    });
    var link = document.getElementById('verify-link');
    if (data.txLink && /^0x[0-9a-fA-F]{64}$/.test(String(body.transaction))) {
      link.href = data.txLink.replace('{tx}', body.transaction);
      link.textContent = data.txLinkText;
      link.parentElement.hidden = false;
    }
    if (extension && typeof extension.signedReceipt === 'string') {
      document.getElementById('signed-receipt').textContent = JSON.stringify({ signedReceipt: extension.signedReceipt, receipt: receipt }, null, 2);
    }
    flow.state = 'paid';
    form.hidden = true;
    problemLine.textContent = '';
    say('Payment complete.');
    document.getElementById('receipt').hidden = false;
    document.getElementById('receipt-title').focus();
  }

  async function submit(submission) {
    for (var attempt = 0; attempt < 20; attempt += 1) {
      say(attempt === 0 ? 'Sending your signed payment…' : 'Checking the payment again…');
      var response;
      try {
        response = await fetch(submission.url, { headers: { 'payment-signature': submission.header }, cache: 'no-store', credentials: 'same-origin' });
      } catch (error) {
        refuse(DROPPED);
        return;
      }
      var body = await readJson(response);
      if (response.status === 200 && body !== null && body.success === true) {
        flow.submission = null;
        showReceipt(body, submission);
        return;
      }
      if (response.status === 202) {
        var seconds = Math.min(30, Math.max(1, Number(response.headers.get('retry-after')) || 2));
        var details = body && body.error && body.error.details ? body.error.details : {};
        var tx = typeof details.transaction === 'string' ? ' (transaction ' + details.transaction + ')' : '';
        say('Your payment was sent to the network' + tx + ' and is waiting for confirmation. Checking again in ' + seconds + ' s…');
        await new Promise(function (resolve) { setTimeout(resolve, seconds * 1000); });
        continue;
      }
      if (!isRetryable(response.status)) flow.submission = null;
      refuse(describeGatewayError(response.status, body, networkLabel));
      return;
    }
    refuse('Your payment is still waiting for confirmation. Press Pay to check again: you will not pay twice.');
  }

  async function pay() {
    var amount = fixedAmount;
    if (amount === null) {
      var parsed = parseTokenInput(amountInput.value, decimals);
      if (!parsed.ok) { showAmountError(parsed.message); amountInput.focus(); return; }
      showAmountError('');
      amount = parsed.atomic;
    }
    var provider = wallet();
    if (provider === null) { refuse(NO_WALLET); return; }
    if (!(await connect(provider))) return;
    var url = data.receive + (fixedAmount === null ? '&amount=' + amount : '');
    var pending = flow.submission;
    if (pending !== null && pending.url === url && pending.account === flow.account) { await submit(pending); return; }
    say('Asking the payment service for the payment terms…');
    var negotiation;
    try {
      negotiation = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
    } catch (error) {
      refuse(UNREACHABLE);
      return;
    }
    var header = negotiation.headers.get('payment-required');
    if (negotiation.status !== 402 || header === null) { refuse(describeGatewayError(negotiation.status, await readJson(negotiation), networkLabel)); return; }
    var required = decodeJsonBase64(header);
    var accepted = Array.isArray(required.accepts) ? required.accepts[0] : undefined;
    var mismatch = checkRequirements(accepted, { chainId: chainId, payTo: data.payTo, amount: amount });
    if (mismatch !== null) { refuse(mismatch); return; }
    var authorization = buildAuthorization(accepted, flow.account, paymentNowSeconds(negotiation.headers.get('date'), Date.now()), randomHex(32));
    say('Check the payment in your wallet and sign it: ' + formatTokenAmount(amount, decimals) + ' USDC to ' + accepted.payTo + '.');
    var signature = await provider.request({ method: 'eth_signTypedData_v4', params: [flow.account, JSON.stringify(transferTypedData(accepted, chainId, authorization))] });
    var paymentHeader = encodeJsonBase64(paymentPayload(required, accepted, authorization, signature, 'pay_' + randomHex(16).slice(2)));
    flow.submission = { url: url, account: flow.account, header: paymentHeader, amount: amount };
    await submit(flow.submission);
  }

  connectButton.addEventListener('click', guarded(async function () {
    var provider = wallet();
    if (provider === null) { refuse(NO_WALLET); return; }
    await connect(provider);
  }));
  form.addEventListener('submit', guarded(pay));
  if (amountInput !== null) {
    amountInput.addEventListener('input', function () {
      var parsed = parseTokenInput(amountInput.value, decimals);
      if (amountInput.getAttribute('aria-invalid') === 'true') showAmountError('');
      payButton.textContent = parsed.ok ? 'Pay ' + formatTokenAmount(parsed.atomic, decimals) + ' USDC' : 'Pay';
    });
  }
  var provider = wallet();
  if (provider === null) {
    refuse(NO_WALLET);
  } else if (typeof provider.on === 'function') {
    provider.on('accountsChanged', function (accounts) {
      if (flow.state === 'paid') return;
      setAccount(Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null);
    });
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', startPayPage);
else startPayPage();
`;
