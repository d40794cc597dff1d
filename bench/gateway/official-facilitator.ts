/**
 * The official stack's facilitator for the benchmark, written the way the x402 documentation shows
 * (`examples/typescript/facilitator/basic`): `x402Facilitator` + `ExactEvmScheme` over
 * `toFacilitatorEvmSigner` on a viem wallet client extended with public actions, served by Express at
 * `/verify`, `/settle`, `/supported`. Its own account (anvil dev account #3), so the two stacks never share
 * a nonce.
 */
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import express from 'express';
import { createWalletClient, defineChain, http, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** anvil's well-known dev account #3 (public key material, dev chains only). */
const officialFacilitatorKey: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';

export async function startOfficialFacilitator(rpcUrl: string, chainId: number): Promise<{ url: string; close: () => Promise<void> }> {
  const chain = defineChain({ id: chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  const account = privateKeyToAccount(officialFacilitatorKey);
  const client = createWalletClient({ account, chain, transport: http(rpcUrl), pollingInterval: 50 }).extend(publicActions);
  type Args<K extends keyof typeof client> = Parameters<(typeof client)[K] & ((...args: never[]) => unknown)>[0];
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => client.getCode(args),
    readContract: (args) => client.readContract({ ...args, args: args.args ?? [] } as Args<'readContract'>),
    verifyTypedData: (args) => client.verifyTypedData(args as Args<'verifyTypedData'>),
    writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] } as Args<'writeContract'>),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  });
  const facilitator = new x402Facilitator().register(`eip155:${chainId}`, new ExactEvmScheme(signer));

  const app = express();
  app.use(express.json());
  app.post('/verify', async (req, res) => {
    res.json(await facilitator.verify(req.body.paymentPayload, req.body.paymentRequirements));
  });
  app.post('/settle', async (req, res) => {
    res.json(await facilitator.settle(req.body.paymentPayload, req.body.paymentRequirements));
  });
  app.get('/supported', (_req, res) => {
    res.json(facilitator.getSupported());
  });
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
