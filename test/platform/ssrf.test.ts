import { describe, expect, it } from 'vitest';
import { nonPublicReason } from '../../src/platform/ssrf.js';

describe('which addresses the platform refuses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['10.1.2.3', 'private'],
    ['::ffff:c0a8:101', 'private'],
    ['::1', 'loopback'],
    ['fd12::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['2002:7f00:1::1', '6to4'],
    ['0.0.0.0', 'unspecified'],
    // Issue 36, row 9: every reserved IPv6 range.
    ['fec0::1', 'site-local'],
    ['feff:ffff::1', 'site-local'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['::ffff:0:808:808', 'IPv4-translated'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['64:ff9b::8.8.8.8', 'NAT64'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['2001:2::1', 'benchmarking'],
    ['2001:1::1', 'IETF protocol assignment'],
    ['5f00::1', 'segment-routing'],
    ['192.0.2.1', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['192.88.99.1', '6to4 relay'],
  ])('%s is refused (%s)', (address, kind) => {
    expect(nonPublicReason(address)).toContain(kind);
  });

  it.each([
    '8.8.8.8',
    '::ffff:8.8.8.8',
    '2606:4700::1111',
    '93.184.216.34',
    // Just outside the ranges above.
    '2001:200::1',
    '2001:4860:4860::8888',
    '2003::1',
    '64:ff9c::1',
    '100:0:0:1::1',
    'fe7f::1',
  ])('%s is public', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });
});
