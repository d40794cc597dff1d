// Payments from an ERC-1271 contract wallet on a real anvil chain. Its signatures are not 65-byte ECDSA,
// so the gateway cannot recover them offline: the facilitator verifies before any claim is written (the
// "verify first" branch), settlement must still happen exactly once, a signature the wallet refuses must
// leave nothing behind, and a wallet payment executed on chain by someone else must be recoverable.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concatHex, createWalletClient, getAddress, type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devAccountKeys, devChainDefinition, devTransport } from '@tollgate/gateway-server/devchain';
import { testErc1271WalletArtifact } from '../devchain/test-wallet-artifact';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { encodePayment, mintUsdc, payableRef, signPayment, startPaymentStack, tokenOf, transfersTo, type PaymentStack } from '../helpers/payments';
import { executeAuthorization, recover, requirementsOf } from '../helpers/recovery-app';
import { startEvidenceGateway } from '../evidence/helpers';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;
let wallet: Address;
const owner = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, {}, { clock: new TestWallClock() });
  const deployer = createWalletClient({ account: privateKeyToAccount(devAccountKeys.deployer), chain: devChainDefinition(stack.setup.chainId, stack.anvil.rpcUrl), transport: devTransport(stack.anvil.rpcUrl) });
  const hash = await deployer.deployContract({ abi: testErc1271WalletArtifact.abi, bytecode: testErc1271WalletArtifact.bytecode, args: [owner.address] });
  wallet = getAddress((await stack.chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress as Address);
  await mintUsdc(stack, wallet, 1_000_000n);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});
beforeEach(() => stack.resetCounts());

/** The contract wallet as a signer: the owner's ECDSA signature tagged `tag` (the wallet accepts 0x01 only). */
function walletSigner(tag: '0x01' | '0x02' = '0x01'): LocalAccount {
  return { ...owner, address: wallet, signTypedData: async (parameters: Parameters<LocalAccount['signTypedData']>[0]) => concatHex([await owner.signTypedData(parameters), tag]) } as LocalAccount;
}

const rowsOf = async (refId: string) =>
  (await gateway.server.database.sql.query<{ state: string }>('SELECT state FROM gateway_payments WHERE ref_id = $1', [refId])).rows.map((row) => row.state);

describe('a payment signed by an ERC-1271 contract wallet', () => {
  it('settles exactly once through the facilitator, and a replay answers the same receipt', async () => {
    const ref = await payableRef(gateway);
    const payload = await signPayment(tokenOf(stack), walletSigner(), await requirementsOf(gateway.url, ref.path));
    expect(((payload.payload as { signature: string }).signature.length - 2) / 2).toBe(66);
    const header = encodePayment(payload);
    const [first, second] = await Promise.all([0, 1].map(() => call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } })));
    const answers = [first!, second!];
    // Two at once: one settles; the other answers the same receipt or "pending", never an error of ours.
    expect(answers.filter((answer) => answer.status === 200).length, answers.map((answer) => answer.text).join('\n')).toBeGreaterThanOrEqual(1);
    for (const answer of answers) expect([200, 202], answer.text).toContain(answer.status);
    const transfers = await transfersTo(stack, ref.merchant.payTo);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ from: wallet, value: 10_000n });
    expect(stack.counts.settle).toBe(1);
    const replay = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.text).toBe(answers.find((answer) => answer.status === 200)!.text);
    expect(await rowsOf(ref.refId)).toEqual(['settled']);
  });

  it('refuses a signature the wallet rejects without recording a payment or settling, and the ref stays payable', async () => {
    const ref = await payableRef(gateway);
    const requirements = await requirementsOf(gateway.url, ref.path);
    const rejected = await signPayment(tokenOf(stack), walletSigner('0x02'), requirements);
    const refused = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(rejected) } });
    expect(refused.status, refused.text).toBe(402);
    expect(await rowsOf(ref.refId)).toEqual([]);
    expect(stack.counts.settle).toBe(0);
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
    const paid = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(await signPayment(tokenOf(stack), walletSigner(), requirements)) } });
    expect(paid.status, paid.text).toBe(200);
  });

  it('is recovered from the chain when someone else executed it, and only then', async () => {
    const ref = await payableRef(gateway);
    const payload = await signPayment(tokenOf(stack), walletSigner(), await requirementsOf(gateway.url, ref.path));
    const before = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload });
    expect(expectError(before, 404, 'not_found')).toMatchObject({ settled: false, reason: 'not_yet_on_chain' });
    const { txHash } = await executeAuthorization(stack, payload);
    const recovered = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload });
    expect(recovered.status, recovered.text).toBe(200);
    expect(JSON.parse(recovered.text)).toMatchObject({ transaction: txHash });
    expect(await rowsOf(ref.refId)).toEqual(['settled']);
    expect(stack.counts.settle).toBe(0);
  });
});
