import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEndpointUrl, isPublicAddress, type Resolve } from './endpoint-address.js';
import { startWebhookReceiver } from './testing/webhook-receiver.js';
import { createWebhookSender } from './webhook-sender.js';

const production = { production: true };
const development = { production: false };
/** A resolver that answers every name with these addresses, as a DNS server under someone's control could. */
const resolvingTo =
  (...addresses: string[]): Resolve =>
  (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

const refusal = async (url: string, options: Parameters<typeof checkEndpointUrl>[1]) =>
  checkEndpointUrl(url, options).then(
    () => undefined,
    (error: { code: string; message: string }) => `${error.code}: ${error.message}`,
  );

describe('the SSRF guard', () => {
  it('knows public addresses from private, loopback, link-local, unique-local, CGNAT, multicast and mapped ones', () => {
    // An IPv6 address carrying a public IPv4 address leads there (NAT64, 6to4).
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::1'])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      // IPv4-compatible forms of loopback and private addresses, judged by their IPv4 address.
      '::7f00:1',
      '::127.0.0.1',
      '::a00:1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'not an address',
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it('in production refuses http, private and loopback literals, and names that resolve to them (400)', async () => {
    expect(await refusal('http://hooks.example.com/in', { ...production, resolve: resolvingTo('93.184.216.34') })).toBe(
      'BadRequest: The endpoint must be an https:// URL.',
    );
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://10.0.0.1/',
      'https://[::1]:8443/',
      'https://169.254.169.254/latest',
      'https://[::ffff:7f00:1]/',
      'https://[::7f00:1]/',
    ])
      expect(await refusal(url, production), url).toMatch(/^BadRequest: The endpoint's address .* is not public: webhooks go only to public addresses\.$/);
    // localhost resolves to loopback with the system's resolver; the refusal names the rule, never the address it resolved to.
    expect(await refusal('https://localhost/hooks', production)).toBe(
      "BadRequest: The endpoint's host localhost resolves to an address that is not public: webhooks go only to public addresses.",
    );
    const resolvedPrivately = await refusal('https://hooks.example.com/', { ...production, resolve: resolvingTo('93.184.216.34', '10.1.2.3') });
    expect(resolvedPrivately).toBe(
      "BadRequest: The endpoint's host hooks.example.com resolves to an address that is not public: webhooks go only to public addresses.",
    );
    expect(resolvedPrivately).not.toContain('10.1.2.3');
    expect(await refusal('https://hooks.example.com/', { ...production, resolve: resolvingTo('93.184.216.34') })).toBeUndefined();
    expect(await refusal('https://93.184.216.34/hooks', production)).toBeUndefined();
  });

  it('outside production allows http and private addresses (the development exception)', async () => {
    for (const url of ['http://127.0.0.1:3000/hooks', 'https://10.0.0.1/', 'http://[::1]/', 'http://localhost:4000/'])
      expect(await refusal(url, development), url).toBeUndefined();
  });

  describe('at delivery', () => {
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
    });
    afterAll(async () => receiver?.close());

    it('in production never connects to a non-public address, even for a name that resolved to a public one when registered', async () => {
      const port = new URL(receiver.url).port;
      // DNS rebinding: the name passed the check at registration and now answers with loopback.
      const url = `https://hooks.example.com:${port}/hooks`;
      expect(await refusal(url, { ...production, resolve: resolvingTo('93.184.216.34') })).toBeUndefined();
      const sender = createWebhookSender({ production: true, timeoutMs: 1000, resolve: resolvingTo('127.0.0.1') });
      try {
        expect(await sender.send(url, {}, '{}')).toMatchObject({
          statusCode: null,
          error: "The endpoint's host hooks.example.com resolves to an address that is not public: webhooks go only to public addresses.",
        });
        expect(await sender.send(`https://127.0.0.1:${port}/hooks`, {}, '{}')).toMatchObject({ statusCode: null, error: expect.stringMatching(/not public/) });
        expect(await sender.send(`http://localhost:${port}/hooks`, {}, '{}')).toMatchObject({
          statusCode: null,
          error: 'The endpoint must be an https:// URL.',
        });
      } finally {
        await sender.close();
      }
      expect(receiver.received).toHaveLength(0);
    });

    it('outside production delivers to the local receiver', async () => {
      const sender = createWebhookSender({ production: false, timeoutMs: 1000 });
      try {
        expect(await sender.send(`http://localhost:${new URL(receiver.url).port}/hooks`, {}, '{}')).toMatchObject({ statusCode: 200, error: null });
      } finally {
        await sender.close();
      }
      expect(receiver.received).toHaveLength(1);
    });
  });
});
