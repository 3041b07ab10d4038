import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolve } from '../domain/webhooks/endpoint-address.js';
import { startIdentityProvider } from '../testing/identity-provider.js';
import { createEndUserVerifier } from './end-user-tokens.js';

// Issue #53: JWKS URLs go through the outbound-address guard the webhooks use, and a failing one is
// not fetched again for 30 s, however many calls present tokens for it.
let provider: Awaited<ReturnType<typeof startIdentityProvider>>;
let failing: ReturnType<typeof createServer>;
let failingUrl = '';
let failingFetches = 0;
beforeAll(async () => {
  provider = await startIdentityProvider();
  failing = createServer((_request, response) => {
    failingFetches++;
    // What it answers (its internal details) must never reach the caller.
    response.writeHead(500, { 'content-type': 'text/plain' }).end('db01.internal.example: connection refused');
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/jwks.json`;
});
afterAll(async () => {
  await provider?.close();
  await new Promise((resolve) => failing?.close(resolve));
});

/** A resolver that answers every name with this address, as a DNS server under someone's control could. */
const resolvingTo =
  (address: string): Resolve =>
  (_hostname, _options, callback) =>
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 } satisfies LookupAddress]);

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'verified',
    (error: { message: string }) => error.message,
  );
const couldNotFetch = "The end-user token is not valid: the signing keys could not be fetched from the key's JWKS URL.";

describe('fetching end-user tokens’ signing keys', () => {
  it('in production refuses http and hosts that resolve to private addresses, without a connection', async () => {
    const verifier = createEndUserVerifier({ production: true, resolve: resolvingTo('10.0.0.7') });
    try {
      const token = await provider.token('alice');
      const before = provider.jwksFetches;
      // The development provider's own http URL on loopback.
      expect(await refusal(verifier.endUserOf(provider.settings, token))).toBe(couldNotFetch);
      // An https name that resolves to a private address.
      const privateHost = { ...provider.settings, jwksUrl: 'https://jwks.customer.example/.well-known/jwks.json' };
      expect(await refusal(verifier.endUserOf(privateHost, token))).toBe(couldNotFetch);
      expect(await refusal(verifier.endUserOf({ ...provider.settings, jwksUrl: 'https://[::7f00:1]/jwks.json' }, token))).toBe(couldNotFetch);
      expect(provider.jwksFetches).toBe(before);
    } finally {
      await verifier.close();
    }
  });

  it('in development takes the provider on loopback, as today', async () => {
    const verifier = createEndUserVerifier({ production: false });
    try {
      expect(await verifier.endUserOf(provider.settings, await provider.token('alice'))).toBe('alice');
    } finally {
      await verifier.close();
    }
  });

  it('fetches a failing JWKS URL at most once per 30 s, and tells the caller nothing of what it answered', async () => {
    const verifier = createEndUserVerifier({ production: false });
    try {
      const token = await provider.token('alice');
      const settings = { ...provider.settings, jwksUrl: failingUrl };
      const answers = await Promise.all(Array.from({ length: 5 }, () => refusal(verifier.endUserOf(settings, token))));
      expect(answers).toEqual(Array(5).fill(couldNotFetch));
      expect(await refusal(verifier.endUserOf(settings, token))).toBe(couldNotFetch);
      expect(failingFetches).toBe(1);
    } finally {
      await verifier.close();
    }
  });
});
