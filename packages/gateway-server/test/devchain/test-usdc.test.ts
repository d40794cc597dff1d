import { concat, domainSeparator, parseEventLogs, parseSignature, serializeSignature, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDevPublicClient,
  devAccountKeys,
  devChainDefinition,
  setupDevChain,
  startAnvil,
  testUsdcArtifact,
  type AnvilInstance,
  type DevChainSetup,
} from '@tollgate/gateway-server/devchain';
import { freshAccount, randomNonce, revertReason, signAuthorization, signCancellation, walletFor, type Authorization } from './helpers';
import { testErc1271WalletArtifact } from './test-wallet-artifact';

const MERCHANT_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'; // anvil dev account #3
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let anvil: AnvilInstance;
let setup: DevChainSetup;
let client: ReturnType<typeof createDevPublicClient>;
let submitter: ReturnType<typeof walletFor>;
let merchantWallet: ReturnType<typeof walletFor>;
const payer = privateKeyToAccount(devAccountKeys.payer);
const merchant = privateKeyToAccount(MERCHANT_KEY);
let usdc: Address;

beforeAll(async () => {
  anvil = await startAnvil();
  setup = await setupDevChain({ rpcUrl: anvil.rpcUrl });
  const chain = devChainDefinition(setup.chainId, anvil.rpcUrl);
  client = createDevPublicClient(chain, anvil.rpcUrl);
  submitter = walletFor(privateKeyToAccount(devAccountKeys.facilitator), chain, anvil.rpcUrl);
  merchantWallet = walletFor(merchant, chain, anvil.rpcUrl);
  usdc = setup.usdc.address;
});

afterAll(async () => {
  await anvil?.stop();
});

async function now(): Promise<bigint> {
  return (await client.getBlock()).timestamp;
}

async function authorization(overrides: Partial<Authorization> = {}): Promise<Authorization> {
  return { from: payer.address, to: merchant.address, value: 10_000n, validAfter: 0n, validBefore: (await now()) + 3_600n, nonce: randomNonce(), ...overrides };
}

const balanceOf = (account: Address) => client.readContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [account] });

function argsOf(a: Authorization) {
  return [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
}

function splitArgs(a: Authorization, signature: Hex) {
  const { v, r, s } = parseSignature(signature);
  return [...argsOf(a), Number(v), r, s] as const;
}

/** Simulates `transferWithAuthorization` (v,r,s form) from the submitter and returns the revert reason. */
function transferRevert(a: Authorization, signature: Hex) {
  return revertReason(client.simulateContract({ account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization', args: splitArgs(a, signature) }));
}

describe('TestUSDC', () => {
  it('is deployed by setup with USDC metadata and a matching EIP-712 domain', async () => {
    expect(setup.deployedNow).toBe(true);
    expect(await client.getCode({ address: usdc })).toMatch(/^0x[0-9a-f]{100,}$/);
    const read = <F extends 'name' | 'version' | 'symbol' | 'decimals' | 'DOMAIN_SEPARATOR' | 'eip712Domain'>(functionName: F) =>
      client.readContract({ address: usdc, abi: testUsdcArtifact.abi, functionName });
    expect([await read('name'), await read('version'), await read('symbol'), await read('decimals')]).toEqual(['USD Coin', '2', 'USDC', 6]);
    expect(setup.usdc.domain).toEqual({ name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: usdc });
    expect(await read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: setup.usdc.domain }));
    expect(await read('eip712Domain')).toEqual(['0x0f', 'USD Coin', '2', 31337n, usdc, `0x${'0'.repeat(64)}`, []]);
  });

  it('lets a separate account submit a zero-ETH payer\'s authorization through both overloads', async () => {
    expect(await client.getBalance({ address: payer.address })).toBe(0n);
    const before = { payer: await balanceOf(payer.address), merchant: await balanceOf(merchant.address) };

    const first = await authorization();
    const firstSignature = await signAuthorization(payer, setup.usdc.domain, first);
    const viaSplit = await submitter.writeContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization', args: splitArgs(first, firstSignature) });
    const second = await authorization({ value: 2_500n });
    const viaBytes = await submitter.writeContract({
      address: usdc,
      abi: testUsdcArtifact.abi,
      functionName: 'transferWithAuthorization',
      args: [...argsOf(second), await signAuthorization(payer, setup.usdc.domain, second)],
    });

    for (const [hash, auth] of [[viaSplit, first], [viaBytes, second]] as const) {
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      expect(receipt.from.toLowerCase()).toBe(submitter.account.address.toLowerCase());
      const events = parseEventLogs({ abi: testUsdcArtifact.abi, logs: receipt.logs });
      expect(events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer']);
      expect(events[0]?.args).toEqual({ authorizer: payer.address, nonce: auth.nonce });
      expect(events[1]?.args).toEqual({ from: payer.address, to: merchant.address, value: auth.value });
      expect(await client.readContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'authorizationState', args: [payer.address, auth.nonce] })).toBe(true);
    }
    expect(await balanceOf(payer.address)).toBe(before.payer - 12_500n);
    expect(await balanceOf(merchant.address)).toBe(before.merchant + 12_500n);
    expect(await client.getBalance({ address: payer.address })).toBe(0n);

    // Replays revert with USDC's string in both forms.
    expect(await transferRevert(first, firstSignature)).toBe('FiatTokenV2: authorization is used or canceled');
    const replayBytes = client.simulateContract({
      account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization',
      args: [...argsOf(first), firstSignature],
    });
    expect(await revertReason(replayBytes)).toBe('FiatTokenV2: authorization is used or canceled');
  });

  it('refuses expired, not-yet-valid, wrongly signed, tampered and unfunded authorizations with USDC strings', async () => {
    const t = await now();
    const expired = await authorization({ validBefore: t - 1n });
    expect(await transferRevert(expired, await signAuthorization(payer, setup.usdc.domain, expired))).toBe('FiatTokenV2: authorization is expired');
    const early = await authorization({ validAfter: t + 3_600n, validBefore: t + 7_200n });
    expect(await transferRevert(early, await signAuthorization(payer, setup.usdc.domain, early))).toBe('FiatTokenV2: authorization is not yet valid');
    const stranger = await authorization();
    expect(await transferRevert(stranger, await signAuthorization(freshAccount(), setup.usdc.domain, stranger))).toBe('FiatTokenV2: invalid signature');
    const signed = await authorization();
    const signature = await signAuthorization(payer, setup.usdc.domain, signed);
    expect(await transferRevert({ ...signed, value: signed.value + 1n }, signature)).toBe('FiatTokenV2: invalid signature');
    const wrongDomain = await authorization();
    expect(await transferRevert(wrongDomain, await signAuthorization(payer, { ...setup.usdc.domain, name: 'USDC' }, wrongDomain))).toBe('FiatTokenV2: invalid signature');
    const tooMuch = await authorization({ value: (await balanceOf(payer.address)) + 1n });
    expect(await transferRevert(tooMuch, await signAuthorization(payer, setup.usdc.domain, tooMuch))).toBe('ERC20: transfer amount exceeds balance');
  });

  it('rejects malformed signatures like USDC\'s ECRecover', async () => {
    const a = await authorization();
    const { r, s, yParity } = parseSignature(await signAuthorization(payer, setup.usdc.domain, a));
    const highS = serializeSignature({ r, s: toHex(SECP256K1_N - BigInt(s), { size: 32 }), yParity: 1 - (yParity ?? 0) });
    expect(await transferRevert(a, highS)).toBe("ECRecover: invalid signature 's' value");
    const short = client.simulateContract({
      account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization',
      args: [...argsOf(a), concat([r, s])],
    });
    expect(await revertReason(short)).toBe('ECRecover: invalid signature length');
  });

  it('requires the payee to call receiveWithAuthorization', async () => {
    const a = await authorization();
    const signature = await signAuthorization(payer, setup.usdc.domain, a, 'ReceiveWithAuthorization');
    const byOther = client.simulateContract({ account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'receiveWithAuthorization', args: splitArgs(a, signature) });
    expect(await revertReason(byOther)).toBe('FiatTokenV2: caller must be the payee');
    // A TransferWithAuthorization signature is not valid for receive (different type hash).
    const transferSig = await signAuthorization(payer, setup.usdc.domain, a);
    const crossType = client.simulateContract({ account: merchant, address: usdc, abi: testUsdcArtifact.abi, functionName: 'receiveWithAuthorization', args: [...argsOf(a), transferSig] });
    expect(await revertReason(crossType)).toBe('FiatTokenV2: invalid signature');

    const before = await balanceOf(merchant.address);
    const hash = await merchantWallet.writeContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'receiveWithAuthorization', args: [...argsOf(a), signature] });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await balanceOf(merchant.address)).toBe(before + a.value);
  });

  it('cancels an unused authorization, which then cannot be used or canceled again', async () => {
    const a = await authorization();
    const cancelSignature = await signCancellation(payer, setup.usdc.domain, payer.address, a.nonce);
    const forged = client.simulateContract({
      account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'cancelAuthorization',
      args: [payer.address, a.nonce, await signCancellation(freshAccount(), setup.usdc.domain, payer.address, a.nonce)],
    });
    expect(await revertReason(forged)).toBe('FiatTokenV2: invalid signature');

    const { v, r, s } = parseSignature(cancelSignature);
    const hash = await submitter.writeContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'cancelAuthorization', args: [payer.address, a.nonce, Number(v), r, s] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(parseEventLogs({ abi: testUsdcArtifact.abi, logs: receipt.logs }).map((e) => [e.eventName, e.args])).toEqual([
      ['AuthorizationCanceled', { authorizer: payer.address, nonce: a.nonce }],
    ]);
    expect(await client.readContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'authorizationState', args: [payer.address, a.nonce] })).toBe(true);
    expect(await transferRevert(a, await signAuthorization(payer, setup.usdc.domain, a))).toBe('FiatTokenV2: authorization is used or canceled');
    const again = client.simulateContract({ account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'cancelAuthorization', args: [payer.address, a.nonce, cancelSignature] });
    expect(await revertReason(again)).toBe('FiatTokenV2: authorization is used or canceled');
  });

  it('accepts ERC-1271 contract-wallet signatures through the bytes overload', async () => {
    const owner = freshAccount();
    const deployHash = await submitter.deployContract({ abi: testErc1271WalletArtifact.abi, bytecode: testErc1271WalletArtifact.bytecode, args: [owner.address] });
    const wallet = (await client.waitForTransactionReceipt({ hash: deployHash })).contractAddress as Address;
    const deployer = walletFor(privateKeyToAccount(devAccountKeys.deployer), submitter.chain, anvil.rpcUrl);
    await client.waitForTransactionReceipt({ hash: await deployer.writeContract({ address: usdc, abi: testUsdcArtifact.abi, functionName: 'mint', args: [wallet, 50_000n] }) });

    const a = await authorization({ from: wallet });
    const ownerSignature = await signAuthorization(owner, setup.usdc.domain, a);
    const bare = client.simulateContract({ account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization', args: [...argsOf(a), ownerSignature] });
    expect(await revertReason(bare)).toBe('FiatTokenV2: invalid signature');
    const hash = await submitter.writeContract({
      address: usdc, abi: testUsdcArtifact.abi, functionName: 'transferWithAuthorization', args: [...argsOf(a), concat([ownerSignature, '0x01'])],
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await balanceOf(wallet)).toBe(40_000n);
  });

  it('lets only the owner mint', async () => {
    const mintByOther = client.simulateContract({ account: submitter.account, address: usdc, abi: testUsdcArtifact.abi, functionName: 'mint', args: [payer.address, 1n] });
    expect(await revertReason(mintByOther)).toBe('Ownable: caller is not the owner');
  });
});
