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
  ])('%s is refused (%s)', (address, kind) => {
    expect(nonPublicReason(address)).toContain(kind);
  });

  it.each(['8.8.8.8', '::ffff:8.8.8.8', '2606:4700::1111', '93.184.216.34'])('%s is public', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });
});
