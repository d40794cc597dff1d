import { concatHex, createWalletClient, getAddress, hashMessage, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevPublicClient, devAccountKeys, devChainDefinition, devTransport, startAnvil, type AnvilInstance } from '@tollgate/gateway-server/devchain';
import { testErc1271WalletArtifact } from './devchain/test-wallet-artifact';
import { call, createRef, expectError, freshAccount, registerMerchant, requestChallenge, startTestGateway, type TestGateway } from './helpers/gateway';

// Registration of ERC-1271 contract wallets and the chain part of /healthz, against a real anvil.
let anvil: AnvilInstance;
let gateway: TestGateway;
let wallet: Address;
const owner = freshAccount();

beforeAll(async () => {
  anvil = await startAnvil();
  const chain = devChainDefinition(anvil.chainId, anvil.rpcUrl);
  const deployer = createWalletClient({ account: privateKeyToAccount(devAccountKeys.facilitator), chain, transport: devTransport(anvil.rpcUrl) });
  const hash = await deployer.deployContract({ abi: testErc1271WalletArtifact.abi, bytecode: testErc1271WalletArtifact.bytecode, args: [owner.address] });
  const receipt = await createDevPublicClient(chain, anvil.rpcUrl).waitForTransactionReceipt({ hash });
  wallet = getAddress(receipt.contractAddress as Address);
  // base-sepolia deliberately points at the local chain: health must notice the wrong chain id.
  gateway = await startTestGateway({ GATEWAY_RPC_URLS: `local=${anvil.rpcUrl},base-sepolia=${anvil.rpcUrl}`, GATEWAY_RPC_TIMEOUT_MS: '1000' });
});

afterAll(async () => {
  await gateway?.close();
  await anvil?.stop();
});

/** The wallet's signature of a challenge: the owner's ECDSA signature of the EIP-191 digest, tagged 0x01. */
async function walletSignature(signingMessage: string, signer = owner) {
  return concatHex([await signer.sign({ hash: hashMessage(signingMessage) }), '0x01']);
}

async function registerWallet(network: string, signer = owner) {
  const challenge = await requestChallenge(gateway.url, wallet, { network });
  expect(challenge.status).toBe(200);
  const signature = await walletSignature(challenge.body.signingMessage, signer);
  return call(gateway.url, 'POST', '/merchant/register', { json: { challengeId: challenge.body.challengeId, payTo: wallet, network, label: 'Wallet shop', signature } });
}

describe('ERC-1271 registration', () => {
  it('refuses a contract wallet on a network without an RPC URL, with a hint', async () => {
    const details = expectError(await registerWallet('base'), 401, 'unauthorized');
    expect(details['hint']).toMatch(/RPC URL/);
  });

  it('refuses a signature the wallet does not approve', async () => {
    expectError(await registerWallet('local', freshAccount()), 401, 'unauthorized');
  });

  it('registers a contract wallet through isValidSignature, and limits its refs to that chain', async () => {
    const response = await registerWallet('local');
    expect(response.status, response.text).toBe(201);
    const apiKey = response.body['apiKey'] as string;
    const me = await call(gateway.url, 'GET', '/merchant/me', { apiKey });
    expect(me.body).toMatchObject({ payTos: [{ payTo: wallet, proof: 'erc1271', network: 'local', status: 'active' }] });
    expect((await createRef(gateway.url, { apiKey, payTo: wallet }, { network: 'local' })).status).toBe(201);
    expect(expectError(await createRef(gateway.url, { apiKey, payTo: wallet }, { network: 'base' }), 400, 'invalid_request')).toMatchObject({
      field: 'network',
      provenNetwork: 'local',
    });
  });

  it('still registers EOAs without asking the chain', async () => {
    const merchant = await registerMerchant(gateway.url, { network: 'local' });
    expect((await createRef(gateway.url, merchant, { network: 'base' })).status).toBe(201);
  });
});

describe('GET /healthz with chain RPCs', () => {
  it('reports each configured chain, its id, and a wrong chain as degraded (still 200)', async () => {
    const response = await call(gateway.url, 'GET', '/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      ok: true,
      status: 'degraded',
      database: { ok: true, engine: 'pglite' },
      chains: [
        { network: 'base-sepolia', ok: false, chainId: 31337, error: 'wrong_chain' },
        { network: 'local', ok: true, chainId: 31337 },
      ],
    });
    expect(response.text).not.toContain(anvil.rpcUrl);
  });
});

describe('chain RPC outage', () => {
  it('answers rpc_unavailable (never a forged-signature refusal) and reports the chain unreachable', async () => {
    const challenge = await requestChallenge(gateway.url, wallet, { network: 'local' });
    const signature = await walletSignature(challenge.body.signingMessage);
    await anvil.stop();
    const response = await call(gateway.url, 'POST', '/merchant/register', {
      json: { challengeId: challenge.body.challengeId, payTo: wallet, network: 'local', label: 'Wallet shop', signature },
    });
    expectError(response, 503, 'rpc_unavailable');
    expect(response.headers.get('retry-after')).toBe('5');
    gateway.clock.advance(5_000);
    const health = await call(gateway.url, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', chains: [{ network: 'base-sepolia', ok: false, error: 'unreachable' }, { network: 'local', ok: false, error: 'unreachable' }] });
  });
});
