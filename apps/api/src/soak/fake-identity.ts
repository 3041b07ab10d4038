import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The one identity call the api makes, `GET /sessions/whoami`, answered as Kratos answers it for
 * people signed up here. The soak suites put the api under load, not identity: the real service
 * takes half a minute to boot on a busy CI machine and would only add its own CPU to the run.
 */
export async function startFakeIdentity() {
  const sessions = new Map<string, { id: string; email: string }>();
  const server = createServer((request, response) => {
    const token = /(?:^|;\s*)ory_kratos_session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    const identity = request.url === '/sessions/whoami' && token ? sessions.get(token) : undefined;
    if (!identity) {
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { id: 'session_inactive', code: 401, status: 'Unauthorized' } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: randomUUID(),
        active: true,
        identity: {
          id: identity.id,
          traits: { email: identity.email },
          verifiable_addresses: [{ value: identity.email, verified: true, via: 'email', status: 'completed' }],
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** A verified person with a live session; the Cookie header their browser would send. */
    signUp: () => {
      const token = randomBytes(24).toString('base64url');
      sessions.set(token, { id: randomUUID(), email: `soak-${randomBytes(6).toString('hex')}@example.com` });
      return `ory_kratos_session=${token}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
