import { describe, expect, it } from 'vitest';
import { checkPublicHttpsUrl } from '@tollgate/core/gateway';

describe('checkPublicHttpsUrl', () => {
  it.each([
    'https://hooks.example.com/tollgate',
    'https://hooks.example.com:443/x?y=1',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://xn--caf-dma.example/',
    'https://example.com./trailing-dot',
    `https://hooks.example.com/${'a'.repeat(2048 - 26)}`,
  ])('accepts %s', (url) => {
    expect(checkPublicHttpsUrl(url).ok).toBe(true);
  });

  it.each([
    ['http://hooks.example.com/x', 'not_https'],
    ['ftp://hooks.example.com/x', 'not_https'],
    ['https://hooks.example.com:8443/x', 'port'],
    ['https://hooks.example.com:80/x', 'port'],
    ['https://user:pass@hooks.example.com/x', 'credentials'],
    ['https://user@hooks.example.com/x', 'credentials'],
    ['https://hooks.example.com/x#frag', 'fragment'],
    ['https://localhost/x', 'local_host_name'],
    ['https://LOCALHOST./x', 'local_host_name'],
    ['https://api.localhost/x', 'local_host_name'],
    ['https://printer.local/x', 'local_host_name'],
    ['https://db.internal/x', 'local_host_name'],
    ['https://router.home.arpa/x', 'local_host_name'],
    ['https://mailhost/x', 'single_label_host'],
    ['https://127.0.0.1/x', 'non_public_ip'],
    ['https://2130706433/x', 'non_public_ip'],
    ['https://0x7f.1/x', 'non_public_ip'],
    ['https://10.0.0.8/x', 'non_public_ip'],
    ['https://100.64.1.1/x', 'non_public_ip'],
    ['https://169.254.169.254/latest/meta-data', 'non_public_ip'],
    ['https://[::1]/x', 'non_public_ip'],
    ['https://[::ffff:127.0.0.1]/x', 'non_public_ip'],
    ['https://[fe80::1]/x', 'non_public_ip'],
    ['https://[fd00::1]/x', 'non_public_ip'],
    ['https://[ff02::1]/x', 'non_public_ip'],
    ['https://224.0.0.1/x', 'non_public_ip'],
    ['https://0.0.0.0/x', 'non_public_ip'],
    ['https://hooks.example.com/a b', 'control_characters'],
    ['https://hooks.exa\nmple.com/x', 'control_characters'],
    ['not a url', 'control_characters'],
    ['//hooks.example.com/x', 'not_a_url'],
    [`https://hooks.example.com/${'a'.repeat(2048 - 25)}`, 'too_long'],
  ])('refuses %s (%s)', (url, reason) => {
    const verdict = checkPublicHttpsUrl(url);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toBe(reason);
  });
});
