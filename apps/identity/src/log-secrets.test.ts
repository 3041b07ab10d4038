import { setupTestDb } from '@meterway/db/testing';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { migrations, schema } from './db/index.js';
import { loadIdentityConfig } from './env.js';
import { cookieHeader, jarFrom } from './testing/fuzz.js';
import { codeIn, linkIn, startMailCatcher } from './testing/mail-catcher.js';

/** Every line the service logs, as pino writes it: the options production runs with (level, serializers, redaction), writing here instead of to stdout. */
const lines: string[] = [];
const logStream = { write: (line: string) => void lines.push(line) };

/**
 * Identity at its chattiest level through sign-up, verification, logins (a wrong password
 * included), logout, recovery by code and by link and a password change: no password, code, link
 * token, session, logout or CSRF token, nor the configured secret, in any line it writes.
 */
const testDb = setupTestDb({ schema, migrations });
const identityUrl = 'http://127.0.0.1:4456';
const identitySecret = 'identity-secret-that-signs-codes-and-logout-tokens-0123456789';
const passwords = {
  first: 'first passphrase of the log test 42',
  wrong: 'wrong passphrase of the log test 17',
  second: 'second passphrase of the log test 99',
};
let mail: Awaited<ReturnType<typeof startMailCatcher>>;
let app: FastifyInstance;

beforeAll(async () => {
  mail = await startMailCatcher();
  const config = loadIdentityConfig({
    LOG_LEVEL: 'trace',
    IDENTITY_URL: identityUrl,
    CONSOLE_URL: 'http://127.0.0.1:3999',
    SMTP_URL: mail.url,
    IDENTITY_SECRET: identitySecret,
  });
  app = await createApp({ config, db: testDb.handle, logStream });
});

afterAll(async () => {
  await app?.close();
  await mail?.close();
});

/** A browser over inject: keeps its cookies, and every value the server hands it that must stay secret. */
function browser(secrets: Set<string>) {
  const jar = new Map<string, string>();
  return {
    jar,
    async call(method: InjectOptions['method'], url: string, options: { payload?: object | string; form?: boolean; headers?: Record<string, string> } = {}) {
      const response: LightMyRequestResponse = await app.inject({
        method,
        url,
        headers: {
          accept: 'application/json',
          ...(jar.size ? { cookie: cookieHeader(jar) } : {}),
          ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...options.headers,
        },
        ...(options.payload !== undefined
          ? { payload: options.form ? new URLSearchParams(options.payload as Record<string, string>).toString() : options.payload }
          : {}),
      });
      for (const [name, value] of jarFrom(response)) {
        jar.set(name, value);
        secrets.add(value);
      }
      return response;
    },
  };
}

const csrfOf = (response: LightMyRequestResponse) =>
  response.json().ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value as string;

describe('identity logs', () => {
  it('never contain a password, code, link token, session or logout token, CSRF token or the secret', async () => {
    const secrets = new Set<string>([...Object.values(passwords), identitySecret]);
    const email = `log-secrets-${Date.now().toString(36)}@example.com`;
    const from = lines.length;

    // Sign up with a password, then verify by the e-mailed link's code and by typing it.
    const alice = browser(secrets);
    const registration = await alice.call('GET', '/self-service/registration/browser');
    const registered = await alice.call('POST', `/self-service/registration?flow=${registration.json().id}`, {
      payload: { method: 'password', traits: { email }, password: passwords.first, csrf_token: csrfOf(registration) },
    });
    expect(registered.statusCode).toBe(200);
    const verificationId = registered.json().continue_with[1].flow.id as string;
    const code = codeIn(await mail.waitForMail(email));
    secrets.add(code);
    expect((await alice.call('GET', `/self-service/verification?flow=${verificationId}&code=${code}`, { headers: { accept: 'text/html' } })).statusCode).toBe(
      303,
    );
    expect((await alice.call('POST', `/self-service/verification?flow=${verificationId}`, { payload: { method: 'code', code } })).json().state).toBe(
      'passed_challenge',
    );

    // The session by cookie, by X-Session-Token and by bearer; then log out.
    const session = alice.jar.get('ory_kratos_session') ?? '';
    expect((await alice.call('GET', '/sessions/whoami')).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/sessions/whoami', headers: { 'x-session-token': session } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/sessions/whoami', headers: { authorization: `Bearer ${session}` } })).statusCode).toBe(200);
    const logout = (await alice.call('GET', '/self-service/logout/browser')).json();
    secrets.add(logout.logout_token);
    expect((await alice.call('GET', `/self-service/logout?token=${logout.logout_token}`)).statusCode).toBe(204);

    // A wrong password from an HTML form, then the right one as JSON.
    const login = await alice.call('GET', '/self-service/login/browser');
    const wrong = await alice.call('POST', `/self-service/login?flow=${login.json().id}`, {
      form: true,
      payload: { method: 'password', identifier: email, password: passwords.wrong, csrf_token: csrfOf(login) },
      headers: { accept: 'text/html' },
    });
    expect(wrong.statusCode).toBe(303);
    const again = await alice.call('GET', '/self-service/login/browser');
    expect(
      (
        await alice.call('POST', `/self-service/login?flow=${again.json().id}`, {
          payload: { method: 'password', identifier: email, password: passwords.first, csrf_token: csrfOf(again) },
        })
      ).statusCode,
    ).toBe(200);

    // Recovery by code, and a new password in the settings flow it opens.
    const bob = browser(secrets);
    const recovery = await bob.call('GET', '/self-service/recovery/browser');
    await bob.call('POST', `/self-service/recovery?flow=${recovery.json().id}`, { payload: { method: 'code', email, csrf_token: csrfOf(recovery) } });
    const recoveryCode = codeIn(await mail.waitForMail(email, 2));
    secrets.add(recoveryCode);
    const recovered = await bob.call('POST', `/self-service/recovery?flow=${recovery.json().id}`, {
      payload: { method: 'code', code: recoveryCode, csrf_token: csrfOf(recovery) },
    });
    expect(recovered.statusCode).toBe(422);
    const settingsId = new URL(recovered.json().redirect_browser_to).searchParams.get('flow') ?? '';
    const settings = await bob.call('GET', `/self-service/settings/flows?id=${settingsId}`);
    const changed = await bob.call('POST', `/self-service/settings?flow=${settingsId}`, {
      payload: { method: 'password', password: passwords.second, csrf_token: csrfOf(settings) },
    });
    expect(changed.json().state).toBe('success');

    // Recovery by the e-mailed link.
    const carol = browser(secrets);
    const linkFlow = await carol.call('GET', '/self-service/recovery/browser');
    await carol.call('POST', `/self-service/recovery?flow=${linkFlow.json().id}`, { payload: { method: 'link', email, csrf_token: csrfOf(linkFlow) } });
    // Mail #3 is the notice of the new password.
    const link = new URL(linkIn(await mail.waitForMail(email, 4)));
    secrets.add(link.searchParams.get('token') ?? '');
    expect((await carol.call('GET', `${link.pathname}${link.search}`, { headers: { accept: 'text/html' } })).statusCode).toBe(303);

    const written = lines.slice(from);
    // The capture works and sees the requests: without it this test could not fail.
    expect(written.length).toBeGreaterThan(40);
    // …including the URLs that carried a code or a token, which reach the log redacted.
    expect(written.some((line) => /"url":"\/self-service\/verification\?flow=[^"]*&code=\[redacted\]"/.test(line))).toBe(true);
    expect(written.some((line) => /"url":"\/self-service\/logout\?token=\[redacted\]"/.test(line))).toBe(true);
    expect(written.some((line) => /"url":"\/self-service\/recovery\?flow=[^"]*&token=\[redacted\]"/.test(line))).toBe(true);
    expect([...secrets].filter((secret) => secret.startsWith('ory_st_')).length).toBeGreaterThanOrEqual(3);
    for (const line of written) JSON.parse(line);
    expect([...secrets].every((secret) => secret.length >= 6)).toBe(true);
    // A six-digit code leaks as a number of its own: inside a longer one ("responseTime":8.3193180…) it is chance.
    const shows = (line: string, secret: string) => (/^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(line) : line.includes(secret));
    const leaks = written.flatMap((line) =>
      [...secrets].filter((secret) => shows(line, secret)).map((secret) => `${secret.slice(0, 8)}… in ${line.slice(0, 300)}`),
    );
    expect(leaks).toEqual([]);
  });

  it('without SMTP, writes the codes to the dev outbox lines only (the development aid) and nowhere else', async () => {
    const outboxDb = await import('@meterway/db/testing').then(({ createTestDb }) => createTestDb({ schema, migrations }));
    const dev = await createApp({
      config: loadIdentityConfig({ LOG_LEVEL: 'trace', IDENTITY_URL: identityUrl, CONSOLE_URL: 'http://127.0.0.1:3999' }),
      db: outboxDb,
      logStream,
    });
    try {
      const from = lines.length;
      const email = `dev-outbox-${Date.now().toString(36)}@example.com`;
      const flow = await dev.inject({ method: 'GET', url: '/self-service/registration/browser', headers: { accept: 'application/json' } });
      const registered = await dev.inject({
        method: 'POST',
        url: `/self-service/registration?flow=${flow.json().id}`,
        headers: { accept: 'application/json', cookie: cookieHeader(jarFrom(flow)) },
        payload: { method: 'password', traits: { email }, password: passwords.first, csrf_token: csrfOf(flow) },
      });
      const code = (await dev.inject({ method: 'GET', url: `/dev/outbox?to=${encodeURIComponent(email)}` })).json().messages[0].code as string;
      const written = lines.slice(from);
      expect(written.filter((line) => line.includes(code)).map((line) => JSON.parse(line).msg)).toEqual(['dev outbox: mail']);
      const session = jarFrom(registered).get('ory_kratos_session') ?? '';
      expect(written.filter((line) => line.includes(passwords.first) || line.includes(session))).toEqual([]);
    } finally {
      await dev.close();
      await outboxDb.close();
    }
  });
});
