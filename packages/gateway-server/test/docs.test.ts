import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gatewayErrorCodes } from '@tollgate/core';
import { renderSigningMessage } from '@tollgate/core/gateway';
import { describe, expect, it } from 'vitest';

// The README section "Gateway: merchants and refs" promises a message format and a status table; both
// are checked against the code so the documentation cannot drift.
const doc = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

describe('README: Gateway: merchants and refs', () => {
  it('lists every gateway error code with its status from the registry', () => {
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|$/gm)].map((match) => [match[1], Number(match[2])]);
    expect(rows).toEqual(Object.entries(gatewayErrorCodes).map(([code, { status }]) => [code, status]));
  });

  it('shows the signing message exactly as the gateway renders it', () => {
    const example = /```text\n([\s\S]*?)\n```/.exec(doc)?.[1];
    const rendered = renderSigningMessage({
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
    });
    expect(example).toBe(rendered);
  });
});
