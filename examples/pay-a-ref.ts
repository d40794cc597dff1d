// Pays a demo ref on the local dev chain that `npm start` runs, with the official x402 client, and checks
// everything a merchant would: the gateway's signed receipt and the transfer on chain.
//
//   npm start                          # in one terminal
//   npm run example -- pay-a-ref       # in another
//
// It finds the running dev stack through the file the gateway writes while it runs
// (`<TOLLGATE_DATA_DIR or .tollgate>/devchain/dev-stack.json`: gateway URL, chain RPC, demo payer key).
// Overrides: GATEWAY_URL, PAYER_PRIVATE_KEY, RPC_URL. The demo payer key is a public dev key.
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, erc20Abi, formatUnits, http, parseEventLogs, type Address, type Hash, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifySignedReceipt } from '@tollgate/core';
import { readDevStackFile } from '@tollgate/gateway-server';

const dataDir = process.env['TOLLGATE_DATA_DIR'] || '.tollgate';
const devStack = readDevStackFile(dataDir);
const gatewayUrl = (process.env['GATEWAY_URL'] || devStack?.gatewayUrl || 'http://localhost:4020').replace(/\/$/, '');
const rpcUrl = process.env['RPC_URL'] || devStack?.rpcUrl;
const payerKey = (process.env['PAYER_PRIVATE_KEY'] || devStack?.payer.privateKey) as Hex | undefined;
const network = 'local';

/** The gateway's error envelope: `{ x402Version: 2, error: { code, message, details } }`. */
interface GatewayErrorBody {
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/** Calls the gateway with a JSON body (if any) and an API key (if any); throws on an error envelope. */
async function gateway<T>(method: string, path: string, options: { body?: unknown; apiKey?: string } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
  let response: Response;
  try {
    response = await fetch(`${gatewayUrl}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  } catch (cause) {
    throw new Error(`No gateway answers at ${gatewayUrl}. Is \`npm start\` running? (set GATEWAY_URL otherwise)`, { cause });
  }
  const body = (await response.json()) as T & GatewayErrorBody;
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${body.error?.code}: ${body.error?.message} ${JSON.stringify(body.error?.details)}`);
  return body;
}

function step(title: string, value: unknown): void {
  console.log(`\n== ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
}

async function main(): Promise<void> {
  if (payerKey === undefined || rpcUrl === undefined) {
    throw new Error(`No running dev stack found in ${dataDir}/devchain/dev-stack.json. Start it with \`npm start\`, or set PAYER_PRIVATE_KEY and RPC_URL.`);
  }
  const payer = privateKeyToAccount(payerKey);
  const chain = createPublicClient({ transport: http(rpcUrl) });

  // 1. The gateway, its network and the address its receipts are signed with (pin it).
  const health = await gateway<{ status: string; receiptSigner: Address; chains: { network: string; ok: boolean }[] }>('GET', '/healthz');
  const receiptSigner = health.receiptSigner;
  step('1. Gateway', { gatewayUrl, status: health.status, receiptSigner, chains: health.chains, rpcUrl, payer: payer.address });

  // 2. A merchant with a fresh wallet registers on the local network (challenge → personal_sign → register).
  const merchant = privateKeyToAccount(generatePrivateKey());
  const challenge = await gateway<{ challengeId: string; signingMessage: string }>('POST', '/merchant/challenge', {
    body: { payTo: merchant.address, network, action: 'merchant.register' },
  });
  const registration = await gateway<{ merchantId: string; apiKey: string }>('POST', '/merchant/register', {
    body: { challengeId: challenge.challengeId, payTo: merchant.address, network, label: 'Demo shop', signature: await merchant.signMessage({ message: challenge.signingMessage }) },
  });
  step('2. Merchant registered', { merchantId: registration.merchantId, payTo: merchant.address });

  // 3. The merchant creates a fixed ref: 0.01 USDC (6 decimals).
  const amount = '10000';
  const ref = await gateway<{ refId: string; snapshot: { resource: string; amount: string; invoiceId?: string } }>('POST', '/ref', {
    apiKey: registration.apiKey,
    body: { payTo: merchant.address, network, amount, invoiceId: `DEMO-${Date.now()}`, label: 'Demo order', expiresInSecs: 3600 },
  });
  step('3. Ref created', { refId: ref.refId, resource: ref.snapshot.resource, amount: ref.snapshot.amount, invoiceId: ref.snapshot.invoiceId });

  // 4. Without a payment the resource answers 402 with the requirements (decoded by the official client).
  const unpaid = await fetch(ref.snapshot.resource);
  const required = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((name) => unpaid.headers.get(name));
  const accepted = required.accepts[0];
  if (unpaid.status !== 402 || accepted === undefined) throw new Error(`Expected a 402 with requirements, got ${unpaid.status}.`);
  step('4. Payment required (402)', { scheme: accepted.scheme, network: accepted.network, amount: accepted.amount, asset: accepted.asset, payTo: accepted.payTo });

  // 5. Pay with the official @x402/fetch client. Spend controls must allow the test USDC; a real client
  //    pins the asset it is willing to pay (e.g. USDC on Base) instead of taking the server's word.
  const asset = accepted.asset as Address;
  const balanceOf = (owner: Address) => chain.readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  const before = await balanceOf(payer.address);
  const client = x402Client.fromConfig({
    schemes: [{ network: accepted.network, client: new ExactEvmScheme(payer) }],
    spendControls: { allowedAssets: [{ network: accepted.network, asset }] },
  });
  const paid = await wrapFetchWithPayment(fetch, client)(ref.snapshot.resource);
  const settlement = (await paid.json()) as {
    success?: boolean;
    transaction: Hash;
    extensions: { 'offer-receipt': { signedReceipt: Hex; receipt: unknown; schema?: unknown } };
  } & GatewayErrorBody;
  if (paid.status !== 200 || settlement.success !== true) throw new Error(`Payment was not settled: ${paid.status} ${JSON.stringify(settlement.error ?? settlement)}`);
  // The x402 extension's JSON schema is left out of the printout: it is the same on every answer.
  const offerReceipt = settlement.extensions['offer-receipt'];
  step('5. Settled (200): the settlement response', { ...settlement, extensions: { 'offer-receipt': { ...offerReceipt, schema: '(JSON schema, omitted here)' } } });
  const header = paid.headers.get('PAYMENT-RESPONSE');
  const sameInHeader = header !== null && JSON.stringify(decodePaymentResponseHeader(header)) === JSON.stringify(settlement);
  console.log(sameInHeader ? 'The PAYMENT-RESPONSE header carries the same settlement response.' : `PAYMENT-RESPONSE header: ${header}`);

  // 6. Verify the gateway's signature over the receipt against the pinned signer, and that it is this payment.
  const { signedReceipt, receipt } = offerReceipt;
  const verification = verifySignedReceipt(signedReceipt, receipt, receiptSigner);
  if (!verification.valid) throw new Error(`The receipt signature does not verify: ${verification.reason}`);
  const expected = { refId: ref.refId, payTo: merchant.address, payer: payer.address, amount, txHash: settlement.transaction };
  for (const [field, value] of Object.entries(expected)) {
    const actual = String(verification.receipt[field as keyof typeof expected]);
    if (actual.toLowerCase() !== value.toLowerCase()) throw new Error(`The receipt's ${field} is ${actual}, not this payment's ${value}.`);
  }
  step('6. Receipt (in the settlement response above) checked', { signedReceipt, pinnedSigner: receiptSigner, receiptHash: verification.receiptHash, matches: Object.keys(expected) });
  console.log(`Receipt verified: signed by ${verification.signer} (receiptHash ${verification.receiptHash})`);

  // 7. Check the transfer on chain: mined, successful, exactly this amount from the payer to the merchant.
  const mined = await chain.getTransactionReceipt({ hash: settlement.transaction });
  const transfer = parseEventLogs({ abi: erc20Abi, logs: mined.logs, eventName: 'Transfer' }).find(
    (log) => log.address.toLowerCase() === asset.toLowerCase() && log.args.from === payer.address && log.args.to === merchant.address && log.args.value === BigInt(amount),
  );
  if (mined.status !== 'success' || transfer === undefined) throw new Error(`Transaction ${settlement.transaction} did not transfer ${amount} to ${merchant.address}.`);
  const after = await balanceOf(payer.address);
  step('7. On chain', { transaction: settlement.transaction, block: String(mined.blockNumber), payerUsdcBefore: formatUnits(before, 6), payerUsdcAfter: formatUnits(after, 6) });
  console.log(`Transfer mined: tx ${settlement.transaction} in block ${mined.blockNumber}: ${amount} from ${payer.address} to ${merchant.address}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
