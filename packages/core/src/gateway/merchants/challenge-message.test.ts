import { describe, expect, it } from 'vitest';
import { challengeTime, renderSigningMessage, webhookUrlSha256, type ChallengeMessage } from '@tollgate/core/gateway';

const message: ChallengeMessage = {
  challengeId: '00112233445566778899aabbccddeeff',
  origin: 'https://pay.example.com',
  action: 'merchant.register',
  payTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  network: 'base',
  chainId: 'eip155:8453',
  webhookSha256: null,
  nonce: 'ffeeddccbbaa99887766554433221100',
  issuedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-01T00:05:00Z',
};

describe('registration challenge text', () => {
  it('renders the documented format exactly', () => {
    expect(renderSigningMessage(message)).toBe(
      [
        'Tollgate merchant registration',
        '',
        'Sign to prove that you control this address and register it with the payment gateway below. Signing sends no transaction and costs nothing.',
        '',
        'Origin: https://pay.example.com',
        'Action: merchant.register',
        'Pay-To: 0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        'Network: base (eip155:8453)',
        'Webhook-SHA256: none',
        'Nonce: ffeeddccbbaa99887766554433221100',
        'Issued-At: 2026-01-01T00:00:00Z',
        'Expiration-Time: 2026-01-01T00:05:00Z',
        'Challenge-ID: 00112233445566778899aabbccddeeff',
      ].join('\n'),
    );
  });

  it('binds the webhook URL as the SHA-256 of its exact text', () => {
    const sha = webhookUrlSha256('https://hooks.example.com/x');
    // sha256("https://hooks.example.com/x"), computed independently with `printf %s … | sha256sum`.
    expect(sha).toBe('2eef74cce4c2d0c728eab8b8501b754dbfe57dbd1cd23f65342313b7b2e5b6a5');
    expect(webhookUrlSha256('https://hooks.example.com/x/')).not.toBe(sha);
    expect(webhookUrlSha256(undefined)).toBeNull();
    expect(renderSigningMessage({ ...message, webhookSha256: sha })).toContain(`Webhook-SHA256: ${sha}`);
  });

  it('writes times in whole UTC seconds and refuses fields that would forge a line', () => {
    expect(challengeTime(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 999)))).toBe('2026-01-01T00:00:00Z');
    expect(() => renderSigningMessage({ ...message, origin: 'https://a.example\nAction: other' })).toThrow(TypeError);
  });
});
