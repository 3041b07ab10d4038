import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EnvError, parseEnv } from './env.js';
import { fastifyOptions } from './fastify-options.js';
import { type TrustProxy, trustProxySetting } from './trust-proxy.js';

const schema = z.object({ TRUST_PROXY: trustProxySetting });
const parsed = (value?: string) => parseEnv(schema, value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;
const problemsOf = (value: string) => {
  try {
    parsed(value);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  throw new Error(`TRUST_PROXY=${value} was accepted`);
};
const expected = "expected false, a number of proxy hops, or a comma-separated list of the proxies' IP addresses and CIDRs";

describe('TRUST_PROXY', () => {
  it('is off when unset, empty or false', () => {
    expect(parsed()).toBe(false);
    expect(parsed('')).toBe(false);
    expect(parsed('false')).toBe(false);
    expect(parsed(' false ')).toBe(false);
  });

  it('takes a hop count', () => {
    expect(parsed('1')).toBe(1);
    expect(parsed('3')).toBe(3);
  });

  it('takes IPv4 and IPv6 addresses and CIDRs, trimmed, blanks dropped', () => {
    expect(parsed('10.0.0.0/8, 127.0.0.1, ::1')).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(parsed('fd00::/8,,192.168.1.1/32 ,2001:db8::/128,')).toEqual(['fd00::/8', '192.168.1.1/32', '2001:db8::/128']);
  });

  it('refuses a bad value, naming the bad entry', () => {
    expect(problemsOf('10.0.0.0/33')).toEqual([`TRUST_PROXY: "10.0.0.0/33" is not an IP address or CIDR; ${expected} (got "10.0.0.0/33")`]);
    expect(problemsOf('127.0.0.1, localhost, 10.0.0.0/0')).toEqual([
      `TRUST_PROXY: "localhost" is not an IP address or CIDR; ${expected} (got "127.0.0.1, localhost, 10.0.0.0/0")`,
      `TRUST_PROXY: "10.0.0.0/0" is not an IP address or CIDR; ${expected} (got "127.0.0.1, localhost, 10.0.0.0/0")`,
    ]);
    expect(problemsOf('0')).toEqual(['TRUST_PROXY: must be at least 1 hop (false turns it off) (got "0")']);
    expect(problemsOf('true')).toEqual([`TRUST_PROXY: true would believe any X-Forwarded-For a client makes up; ${expected} (got "true")`]);
    expect(problemsOf(',')).toEqual([`TRUST_PROXY: lists no address; ${expected} (got ",")`]);
    for (const entry of ['::1/129', '10.0.0.1/', '10.0.0.1/8/8', '1.2.3', '300.0.0.1', '-1', '1.5', '10.0.0.0/255.0.0.0', 'loopback']) {
      expect(problemsOf(entry)).toEqual([`TRUST_PROXY: "${entry}" is not an IP address or CIDR; ${expected} (got "${entry}")`]);
    }
  });
});

/** The `request.ip` a service built with `fastifyOptions` sees for a request from `remoteAddress`. */
async function ipSeen(setting: TrustProxy, remoteAddress: string, forwardedFor?: string) {
  const app = Fastify(fastifyOptions('silent', setting));
  app.get('/', async (request) => request.ip);
  try {
    const response = await app.inject({ url: '/', remoteAddress, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
    return response.body;
  } finally {
    await app.close();
  }
}

describe('fastifyOptions with TRUST_PROXY', () => {
  it('ignores X-Forwarded-For when off', async () => {
    expect(await ipSeen(false, '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
    expect(await ipSeen(parsed(), '203.0.113.7', '198.51.100.1, 10.0.0.1')).toBe('203.0.113.7');
  });

  it('with a hop count, takes the address that many proxies from the service', async () => {
    expect(await ipSeen(1, '10.0.0.2', '198.51.100.9, 203.0.113.5')).toBe('203.0.113.5');
    expect(await ipSeen(2, '10.0.0.2', '198.51.100.9, 203.0.113.5')).toBe('198.51.100.9');
    // Fewer entries than hops: the farthest address there is.
    expect(await ipSeen(2, '10.0.0.2', '203.0.113.5')).toBe('203.0.113.5');
    expect(await ipSeen(1, '10.0.0.2')).toBe('10.0.0.2');
  });

  it('with addresses and CIDRs, takes the nearest address that is not a trusted proxy', async () => {
    const proxies = parsed('10.0.0.0/8, 127.0.0.1, fd00::/8');
    expect(await ipSeen(proxies, '10.0.0.2', '198.51.100.9, 203.0.113.5, 10.1.2.3')).toBe('203.0.113.5');
    expect(await ipSeen(proxies, '127.0.0.1', '2001:db8::5')).toBe('2001:db8::5');
    expect(await ipSeen(proxies, 'fd00::1', '203.0.113.5')).toBe('203.0.113.5');
    // A client that is not one of the proxies is its own address, whatever it sends.
    expect(await ipSeen(proxies, '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
  });
});
