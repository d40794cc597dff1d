import { describe, expect, it } from 'vitest';
import { classifyIpAddress, parseIpv4, parseIpv6 } from '@tollgate/core/gateway';

describe('IP literal classification', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('IPv4 %s is %s', (address, kind) => {
    expect(classifyIpAddress(address)).toEqual({ version: 4, kind });
  });

  it.each(['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.169.0.1', '223.255.255.255'])(
    'IPv4 %s is public',
    (address) => expect(classifyIpAddress(address)).toEqual({ version: 4, kind: 'public' }),
  );

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['::1.2.3.4', 'reserved'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['3fff::1', 'documentation'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'reserved'],
  ])('IPv6 %s is %s', (address, kind) => {
    expect(classifyIpAddress(address)).toEqual({ version: 6, kind });
  });

  it.each(['2606:4700:4700::1111', '2a00:1450:4001:80e::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])('IPv6 %s is public', (address) => {
    expect(classifyIpAddress(address)).toEqual({ version: 6, kind: 'public' });
  });

  it('parses text forms exactly and rejects everything else', () => {
    expect(parseIpv4('1.2.3.4')).toBe(0x01020304n);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toBe(0x0001000200030004000500060007_0008n);
    expect(parseIpv6('::ffff:1.2.3.4')).toBe(parseIpv6('::ffff:102:304'));
    expect(parseIpv6('1:2:3:4:5:6:1.2.3.4')).toBe(parseIpv6('1:2:3:4:5:6:102:304'));
    for (const bad of ['01.2.3.4', '1.2.3', '256.1.1.1', '1.2.3.4.5', ' 1.2.3.4']) expect(parseIpv4(bad)).toBeUndefined();
    for (const bad of ['1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', ':1::', '12345::', 'g::1', '::1.2.3', '1:2:3:4:5:6:7:1.2.3.4', '']) {
      expect(parseIpv6(bad)).toBeUndefined();
    }
    expect(classifyIpAddress('example.com')).toBeUndefined();
  });
});
