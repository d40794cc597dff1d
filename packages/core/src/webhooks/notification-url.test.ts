import { describe, expect, it } from 'vitest';
import { checkNotificationUrl, notificationAddressAllowed } from '@tollgate/core/gateway';

describe('checkNotificationUrl', () => {
  it.each(['https://hooks.example.com/tollgate?token=abc', 'https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook'])('accepts the public HTTPS URL %s', (url) => {
    const checked = checkNotificationUrl(url);
    expect(checked.ok && checked.url.href).toBe(new URL(url).href);
  });

  it.each([
    ['http://hooks.example.com/x', 'not_https'],
    ['https://hooks.example.com:8443/x', 'port'],
    ['https://127.0.0.1/x', 'non_public_ip'],
    ['https://[::1]/x', 'non_public_ip'],
    ['https://169.254.169.254/latest/meta-data', 'non_public_ip'],
    ['https://localhost/x', 'local_host_name'],
    ['hooks.example.com/no-scheme', 'not_a_url'],
  ])('refuses %s outside test mode (%s)', (url, reason) => {
    expect(checkNotificationUrl(url)).toMatchObject({ ok: false, reason });
  });

  it.each(['http://127.0.0.1:8080/hook', 'http://[::1]:9000/hook', 'https://127.0.0.2:8443/hook', 'http://hooks.example.com:3000/hook', 'https://hooks.example.com/hook'])(
    'accepts %s in test mode (http, any port, loopback)',
    (url) => {
      expect(checkNotificationUrl(url, { insecureAllowLoopbackForTests: true }).ok).toBe(true);
    },
  );

  it.each([
    ['http://10.0.0.1:8080/hook', 'non_public_ip'],
    ['http://169.254.169.254/latest', 'non_public_ip'],
    ['http://[fd00::1]:8080/hook', 'non_public_ip'],
    ['http://[::ffff:192.168.1.1]/hook', 'non_public_ip'],
    ['http://localhost:8080/hook', 'local_host_name'],
    ['http://user:pw@127.0.0.1:8080/hook', 'credentials'],
    ['http://127.0.0.1:8080/hook#frag', 'fragment'],
    ['http://127.0.0.1:8080/hook#', 'fragment'],
    ['ftp://127.0.0.1/hook', 'not_https'],
    ['http://127.0.0.1:8080/a b', 'control_characters'],
  ])('still refuses %s in test mode (%s)', (url, reason) => {
    expect(checkNotificationUrl(url, { insecureAllowLoopbackForTests: true })).toMatchObject({ ok: false, reason });
  });
});

describe('notificationAddressAllowed', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['100.64.1.1', 'shared'],
    ['169.254.169.254', 'link_local'],
    ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['fe80::1%eth0', 'unknown'],
    ['hooks.example.com', 'unknown'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(notificationAddressAllowed(address)).toEqual({ allowed: false, kind });
  });

  it('allows public addresses, and loopback only in test mode', () => {
    expect(notificationAddressAllowed('93.184.216.34')).toEqual({ allowed: true });
    expect(notificationAddressAllowed('2606:4700:4700::1111')).toEqual({ allowed: true });
    expect(notificationAddressAllowed('::1', { insecureAllowLoopbackForTests: true })).toEqual({ allowed: true });
    expect(notificationAddressAllowed('10.0.0.1', { insecureAllowLoopbackForTests: true })).toEqual({ allowed: false, kind: 'private' });
  });
});
