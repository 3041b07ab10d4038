import { describe, expect, it } from 'vitest';
import { clientOf } from './client-address.js';

describe('the client a per-address limit counts', () => {
  it('is an IPv4 address itself, mapped into IPv6 or not', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address, so one subscriber cannot take a fresh address per call', () => {
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(clientOf('2001:db8:1:2::9'));
    expect(clientOf('2001:db8:1:3::1')).not.toBe(clientOf('2001:db8:1:2::1'));
  });
});
