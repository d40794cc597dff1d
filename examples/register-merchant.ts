// Registers a merchant on a running Tollgate gateway with a fresh wallet, then creates, lists and
// revokes a payment ref: the "Gateway: merchants and refs" walkthrough of the README as one script.
//
//   GATEWAY_URL=http://localhost:4020 npm run example -- register-merchant
//
// GATEWAY_NETWORK picks the network (default base-sepolia). The wallet is generated on the fly; set
// MERCHANT_PRIVATE_KEY (0x…) to register your own address instead. Nothing here touches a chain.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const gatewayUrl = (process.env['GATEWAY_URL'] ?? 'http://localhost:4020').replace(/\/$/, '');
const network = process.env['GATEWAY_NETWORK'] ?? 'base-sepolia';
const privateKey = (process.env['MERCHANT_PRIVATE_KEY'] as `0x${string}` | undefined) ?? generatePrivateKey();

/** The gateway's error envelope: `{ x402Version: 2, error: { code, message, details } }`. */
interface GatewayErrorBody {
  x402Version: 2;
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** Calls the gateway with a JSON body (if any) and an API key (if any); throws on an error envelope. */
async function gateway<T>(method: string, path: string, options: { body?: unknown; apiKey?: string } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const body = (await response.json()) as T | GatewayErrorBody;
  if (!response.ok) {
    const { error } = body as GatewayErrorBody;
    throw new Error(`${method} ${path} → ${response.status} ${error.code}: ${error.message} ${JSON.stringify(error.details)}`);
  }
  return body as T;
}

function step(title: string, value: unknown): void {
  console.log(`\n== ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
}

async function main(): Promise<void> {
  const account = privateKeyToAccount(privateKey);
  step('Wallet', account.address);

  // 1. Ask for a challenge that binds this gateway, the action, the address and the network.
  const challenge = await gateway<{ challengeId: string; message: Record<string, unknown>; signingMessage: string }>('POST', '/merchant/challenge', {
    body: { payTo: account.address, network, action: 'merchant.register' },
  });
  step('1. Challenge (the wallet signs signingMessage)', challenge.signingMessage);

  // 2. Sign it exactly as shown, with EIP-191 personal_sign.
  const signature = await account.signMessage({ message: challenge.signingMessage });
  step('2. Signature', signature);

  // 3. Register: the API key and the notify HMAC key are shown once. Keep them secret.
  const registration = await gateway<{ merchantId: string; apiKey: string; notifyHmacKey: string; notifyHmacKeyId: string; payTo: string; recovered: boolean }>(
    'POST',
    '/merchant/register',
    { body: { challengeId: challenge.challengeId, payTo: account.address, network, label: 'Example shop', signature } },
  );
  const { apiKey } = registration;
  step('3. Registered', { merchantId: registration.merchantId, payTo: registration.payTo, recovered: registration.recovered, apiKey: `${apiKey.slice(0, 12)}…` });

  // 4. Create a ref for 0.01 USDC (6 decimals) with an invoice id, valid for one hour.
  const ref = await gateway<{ refId: string; refUrl: string; snapshot: Record<string, unknown> }>('POST', '/ref', {
    apiKey,
    body: { payTo: account.address, network, amount: '10000', invoiceId: `INV-${Date.now()}`, label: 'Example order', expiresInSecs: 3600 },
  });
  step('4. Ref created (persist the snapshot with your order)', ref);

  // 5. List this payTo's refs, newest first.
  const page = await gateway<{ items: unknown[]; nextCursor?: string }>('GET', `/ref?pay_to=${account.address}&limit=10`, { apiKey });
  step('5. Refs of this payTo', page);

  // 6. Revoke the ref: future payments through it are refused with ref_revoked.
  const revoked = await gateway<{ refId: string; status: string; revokedAt: number }>('POST', `/ref/${ref.refId}/revoke`, { apiKey });
  step('6. Ref revoked', revoked);

  const lookup = await gateway<{ status: string }>('GET', `/ref/${ref.refId}`);
  step('Public lookup of the ref', { refId: ref.refId, status: lookup.status });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
