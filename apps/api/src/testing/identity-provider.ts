import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

type SigningKey = { kid: string; alg: 'RS256' | 'ES256'; privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; publicJwk: JWK };

async function signingKey(kid: string, alg: SigningKey['alg']): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * A customer's sign-in provider, as the gateway sees one: it issues end-user tokens (JWTs) signed
 * with its keys and publishes their public halves at a JWKS URL, over real HTTP. Its keys can be
 * rotated, and it counts how often its JWKS was fetched.
 */
export async function startIdentityProvider() {
  let keys = [await signingKey('rsa-1', 'RS256'), await signingKey('ec-1', 'ES256')];
  let fetches = 0;
  const server = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') return response.writeHead(404).end();
    fetches++;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: keys.map((key) => key.publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings = { issuer: `${origin}/`, audience: 'meterway-test-app', jwksUrl: `${origin}/.well-known/jwks.json` };

  return {
    /** What a key's endUserTokens names for this provider. */
    settings,
    get jwksFetches() {
      return fetches;
    },
    /**
     * A token for `sub`, valid for an hour, signed with the newest key of `alg`; `claims` add to
     * or override its claims, `signWith` signs with another key (one the JWKS does not list).
     */
    async token(sub: string, options: { alg?: SigningKey['alg']; claims?: JWTPayload; expiresIn?: string | number; signWith?: SigningKey } = {}) {
      const key = options.signWith ?? keys.find((candidate) => candidate.alg === (options.alg ?? 'RS256'))!;
      return new SignJWT({ ...options.claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .setSubject(sub)
        .setIssuer(options.claims?.iss ?? settings.issuer)
        .setAudience(options.claims?.aud ?? settings.audience)
        .setIssuedAt(options.claims?.iat)
        .setExpirationTime(options.expiresIn ?? '1h')
        .sign(key.privateKey);
    },
    /** A key of the provider's kind that its JWKS does not list. */
    unlistedKey: (kid = 'rsa-unlisted') => signingKey(kid, 'RS256'),
    /** Adds a new signing key (the provider's rotation); tokens of `alg` are signed with it from now on, the old key stays listed. */
    async rotate(kid: string, alg: SigningKey['alg'] = 'RS256') {
      keys = [await signingKey(kid, alg), ...keys];
    },
    /** The public key of `alg` as a JWK, for a token that tries to use it as an HMAC secret. */
    publicJwk: (alg: SigningKey['alg'] = 'RS256') => keys.find((key) => key.alg === alg)!.publicJwk,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
