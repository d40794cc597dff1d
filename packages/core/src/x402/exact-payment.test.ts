import { hashTypedData, recoverTypedDataAddress, toHex, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { authorizationTypes, base, baseSepolia, freshAccount, merchant, NOW, signedPayment, withAuthorization, withSignature } from '../../test/x402/fixtures';
import {
  buildPaymentRequirements,
  PaymentVerificationError,
  recoverDigestSigner,
  tokenEip712Domain,
  transferWithAuthorizationDigest,
  verifyExactPayment,
  type PaymentPayload,
} from './index';

const accepted = buildPaymentRequirements({ network: base, payTo: merchant, amount: '10000', maxTimeoutSeconds: 300 });
const payer = freshAccount();
const verify = (payload: PaymentPayload, extra: Partial<Parameters<typeof verifyExactPayment>[0]> = {}) =>
  verifyExactPayment({ payload, expected: accepted, network: base, now: NOW, ...extra });

function refusalError(run: () => unknown): PaymentVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof PaymentVerificationError) return error;
    throw error;
  }
  throw new Error('expected a PaymentVerificationError');
}
function refusal(run: () => unknown): { field: string; reason: string; code: string } {
  const error = refusalError(run);
  return { field: error.field, reason: error.reason, code: error.code };
}

type RecoverParameters = Parameters<typeof recoverTypedDataAddress>[0];
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('verifyExactPayment', () => {
  it('accepts a payment signed by authorization.from under the token domain', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    const inner = payload.payload as { authorization: unknown; signature: Hex };
    expect(verify(payload)).toEqual({ payer: payer.address, authorization: inner.authorization, signature: inner.signature, signatureStatus: 'verified' });
  });

  it('accepts an echo with lowercase addresses and reordered keys', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    const reordered = Object.fromEntries(Object.entries(payload.accepted).reverse()) as unknown as PaymentPayload['accepted'];
    const echoed = { ...payload, accepted: { ...reordered, extra: { version: '2', name: 'USD Coin' }, payTo: merchant.toLowerCase() } };
    expect(Object.keys(echoed.accepted)[0]).toBe('extra');
    expect(verify(echoed).signatureStatus).toBe('verified');
  });

  it('refuses another x402Version, scheme or network', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    expect(refusal(() => verify({ ...payload, x402Version: 1 as 2 }))).toMatchObject({ field: 'x402Version', code: 'payment_verification_failed' });
    expect(refusal(() => verify({ ...payload, accepted: { ...payload.accepted, scheme: 'upto' } }))).toMatchObject({ field: 'scheme' });
    expect(refusal(() => verify({ ...payload, accepted: { ...payload.accepted, network: 'eip155:84532' } }))).toMatchObject({ field: 'network' });
  });

  it('refuses an accepted that is not the regenerated requirement', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    expect(refusal(() => verify({ ...payload, accepted: { ...payload.accepted, amount: '1' } }))).toEqual({ field: 'accepted', reason: 'mismatch', code: 'payment_verification_failed' });
    expect(refusal(() => verify({ ...payload, accepted: { ...payload.accepted, maxTimeoutSeconds: 60 } })).field).toBe('accepted');
    const error = refusalError(() => verify({ ...payload, accepted: { ...payload.accepted, extra: { name: 'USDC', version: '2' } } }));
    expect(error.details).toMatchObject({ field: 'accepted', reason: 'mismatch', path: 'accepted.extra.name' });
  });

  it('refuses a malformed EIP-3009 payload and names the field', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    const cases: [PaymentPayload, string][] = [
      [withAuthorization(payload, { nonce: '0x1234' }), 'authorization.nonce'],
      [withAuthorization(payload, { from: 'alice' }), 'authorization.from'],
      [withAuthorization(payload, { value: 10000 }), 'authorization.value'],
      [withAuthorization(payload, { validBefore: '1e9' }), 'authorization.validBefore'],
      [withSignature(payload, 'deadbeef'), 'signature'],
      [withSignature(payload, '0x'), 'signature'],
      [{ ...payload, payload: { signature: (payload.payload as { signature: string }).signature } }, 'authorization'],
    ];
    for (const [bad, field] of cases) expect(refusal(() => verify(bad))).toMatchObject({ field, reason: 'malformed' });
  });

  it('refuses an authorization to another payee or for another amount', async () => {
    const other = freshAccount().address;
    const toOther = await signedPayment({ network: base, accepted, payer, authorization: { to: other } });
    expect(refusal(() => verify(toOther))).toMatchObject({ field: 'authorization.to', reason: 'mismatch' });
    const less = await signedPayment({ network: base, accepted, payer, authorization: { value: '9999' } });
    expect(refusal(() => verify(less))).toMatchObject({ field: 'authorization.value', reason: 'mismatch' });
  });

  it('checks validAfter against now plus the clock skew', async () => {
    const soon = await signedPayment({ network: base, accepted, payer, authorization: { validAfter: String(NOW + 60), validBefore: String(NOW + 360) } });
    expect(verify(soon).signatureStatus).toBe('verified');
    expect(refusal(() => verify(soon, { clockSkewSeconds: 59 }))).toMatchObject({ field: 'authorization.validAfter', reason: 'not_yet_valid' });
    const later = await signedPayment({ network: base, accepted, payer, authorization: { validAfter: String(NOW + 61), validBefore: String(NOW + 360) } });
    expect(refusal(() => verify(later))).toMatchObject({ field: 'authorization.validAfter' });
  });

  it('refuses an authorization that expired, expires too soon or can never be valid', async () => {
    const expired = await signedPayment({ network: base, accepted, payer, authorization: { validBefore: String(NOW) } });
    expect(refusal(() => verify(expired))).toMatchObject({ field: 'authorization.validBefore', reason: 'expired' });
    const tooSoon = await signedPayment({ network: base, accepted, payer, authorization: { validBefore: String(NOW + 9) } });
    expect(refusal(() => verify(tooSoon))).toMatchObject({ field: 'authorization.validBefore', reason: 'too_soon' });
    expect(verify(tooSoon, { minValiditySeconds: 9 }).signatureStatus).toBe('verified');
    const inverted = await signedPayment({ network: base, accepted, payer, authorization: { validAfter: String(NOW + 30), validBefore: String(NOW + 30) } });
    expect(refusal(() => verify(inverted))).toMatchObject({ field: 'authorization.validBefore', reason: 'before_valid_after' });
  });

  it('refuses an authorization valid beyond maxTimeoutSeconds plus the clock skew (too_late)', async () => {
    // maxTimeoutSeconds 300 + 60 s skew: NOW + 360 is the last accepted validBefore.
    const latest = await signedPayment({ network: base, accepted, payer, authorization: { validBefore: String(NOW + 360) } });
    expect(verify(latest).signatureStatus).toBe('verified');
    const tooLate = await signedPayment({ network: base, accepted, payer, authorization: { validBefore: String(NOW + 361) } });
    expect(refusalError(() => verify(tooLate))).toMatchObject({
      field: 'authorization.validBefore',
      reason: 'too_late',
      details: { field: 'authorization.validBefore', reason: 'too_late', maxTimeoutSeconds: 300, clockSkewSeconds: 60 },
    });
    expect(verify(tooLate, { clockSkewSeconds: 61 }).signatureStatus).toBe('verified');
    const years = await signedPayment({ network: base, accepted, payer, authorization: { validBefore: String(NOW + 10 * 365 * 86_400) } });
    expect(refusal(() => verify(years))).toMatchObject({ field: 'authorization.validBefore', reason: 'too_late' });
  });

  it('refuses a signature by someone else or under another domain', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    const forged = await signedPayment({ network: base, accepted, payer: freshAccount() });
    const stolenSignature = withSignature(payload, (forged.payload as { signature: string }).signature);
    expect(refusal(() => verify(stolenSignature))).toEqual({ field: 'signature', reason: 'signer_mismatch', code: 'payment_verification_failed' });
    // Base Sepolia's domain name is "USDC", Base's "USD Coin": a signature under the wrong one must not pass.
    const wrongName = await signedPayment({ network: base, accepted, payer, domain: { name: 'USDC' } });
    expect(refusal(() => verify(wrongName))).toMatchObject({ field: 'signature', reason: 'signer_mismatch' });
    const wrongChain = await signedPayment({ network: base, accepted, payer, domain: { chainId: 1 } });
    expect(refusal(() => verify(wrongChain))).toMatchObject({ field: 'signature' });
    const tampered = withAuthorization(payload, { validBefore: String(NOW + 301) });
    expect(refusal(() => verify(tampered))).toMatchObject({ field: 'signature', reason: 'signer_mismatch' });
  });

  it('refuses signatures the token contract would refuse: v other than 27/28, high s', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    const signature = (payload.payload as { signature: Hex }).signature;
    const v = parseInt(signature.slice(130), 16);
    const yParity = withSignature(payload, `${signature.slice(0, 130)}0${v - 27}`);
    expect(refusal(() => verify(yParity))).toMatchObject({ field: 'signature', reason: 'unrecoverable_v' });
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const highS = `${signature.slice(0, 66)}${toHex(CURVE_ORDER - s, { size: 32 }).slice(2)}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    // viem accepts the malleated twin and recovers the same payer; USDC would revert it.
    const inner = payload.payload as { authorization: Record<string, string> };
    const typed = { domain: tokenEip712Domain(base), types: authorizationTypes, primaryType: 'TransferWithAuthorization' as const, message: { ...inner.authorization, value: 10000n, validAfter: BigInt(inner.authorization['validAfter'] as string), validBefore: BigInt(inner.authorization['validBefore'] as string) } };
    expect(await recoverTypedDataAddress({ ...typed, signature: highS } as RecoverParameters)).toBe(payer.address);
    expect(refusal(() => verify(withSignature(payload, highS)))).toMatchObject({ field: 'signature', reason: 'unrecoverable_high_s' });
    const zeroR = `0x${'00'.repeat(32)}${signature.slice(66)}`;
    expect(refusal(() => verify(withSignature(payload, zeroR)))).toMatchObject({ field: 'signature', reason: 'unrecoverable_invalid' });
  });

  it('defers smart-wallet signatures (not 65 bytes) to the facilitator', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    const erc6492 = `0x${'ab'.repeat(96)}${'6492'.repeat(16)}`;
    expect(verify(withSignature(payload, erc6492))).toMatchObject({ payer: payer.address, signatureStatus: 'needs_facilitator' });
    expect(verify(withSignature(payload, `0x${'cd'.repeat(64)}`)).signatureStatus).toBe('needs_facilitator');
  });

  it('throws TypeError when expected is for another network (a caller bug)', async () => {
    const payload = await signedPayment({ network: base, accepted, payer });
    expect(() => verifyExactPayment({ payload, expected: accepted, network: baseSepolia, now: NOW })).toThrow(TypeError);
  });
});

describe('fast signer recovery', () => {
  it('gives the same digest and signer as viem hashTypedData / recoverTypedDataAddress', async () => {
    for (const network of [base, baseSepolia]) {
      const requirement = buildPaymentRequirements({ network, payTo: merchant, amount: '123456789', maxTimeoutSeconds: 60 });
      for (let round = 0; round < 10; round++) {
        const signer = freshAccount();
        const payload = await signedPayment({ network, accepted: requirement, payer: signer, authorization: { validBefore: String(NOW + 11 + round * 31) } });
        const { authorization, signature } = payload.payload as { authorization: Record<string, string>; signature: Hex };
        const typed = {
          domain: tokenEip712Domain(network),
          types: authorizationTypes,
          primaryType: 'TransferWithAuthorization' as const,
          message: { ...authorization, value: BigInt(authorization['value'] as string), validAfter: BigInt(authorization['validAfter'] as string), validBefore: BigInt(authorization['validBefore'] as string) },
        };
        const digest = transferWithAuthorizationDigest(network, authorization as never);
        expect(toHex(digest)).toBe(hashTypedData(typed as never));
        const viaViem = await recoverTypedDataAddress({ ...typed, signature } as RecoverParameters);
        expect(recoverDigestSigner(digest, signature)).toEqual({ ok: true, address: viaViem });
        expect(viaViem).toBe(signer.address);
      }
    }
  });
});
