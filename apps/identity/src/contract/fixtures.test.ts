import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'otplib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { csrfOf, nextTotpCode, testPassword } from '../testing/flows.js';
import { fixturesDir, matchFixture, updateFixturesCommand } from '../testing/fixtures.js';
import { setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';
import { codeIn } from '../testing/mail-catcher.js';

/**
 * One fixture per flow state, taken from the server's real answers (normalised). The console's
 * tests render these same files, so both sides of the protocol agree on every field.
 */
const t = setupIdentityServer();

type Answer = { status: number; body: any };

function client() {
  const browser = t.browser();
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await browser.fetch(`${t.baseUrl}${path}`, {
      method,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: response.status === 204 ? null : await response.json() };
  };
  return { browser, call };
}

/** Records a fixture holding the status and the body. */
const record = (name: string, answer: Answer, email: string) => matchFixture(name, answer, { [email]: 'ada@example.com' });

describe('identity protocol fixtures', () => {
  it('registration, verification, session, logout', async () => {
    const email = uniqueEmail('fixture');
    const { call } = client();
    const registration = await call('GET', '/self-service/registration/browser');
    record('registration-choose-method', registration, email);
    const invalid = await call('POST', `/self-service/registration?flow=${registration.body.id}`, {
      method: 'password',
      traits: { email: 'nope' },
      password: 'short',
      csrf_token: csrfOf(registration.body),
    });
    record('registration-invalid', invalid, email);
    const registered = await call('POST', `/self-service/registration?flow=${registration.body.id}`, {
      method: 'password',
      traits: { email },
      password: testPassword,
      csrf_token: csrfOf(registration.body),
    });
    record('registration-success', registered, email);

    const verificationId = registered.body.continue_with[1].flow.id;
    const sent = await call('GET', `/self-service/verification/flows?id=${verificationId}`);
    record('verification-sent-email', sent, email);
    const code = codeIn(await t.mail.waitForMail(email));
    record(
      'verification-invalid-code',
      await call('POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code: code === '000000' ? '111111' : '000000' }),
      email,
    );
    record('verification-passed-challenge', await call('POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code }), email);
    record('verification-choose-method', await call('GET', '/self-service/verification/browser'), email);

    record('whoami', await call('GET', '/sessions/whoami'), email);
    record('registration-session-already-available', await call('GET', '/self-service/registration/browser'), email);
    const logout = await call('GET', '/self-service/logout/browser');
    record('logout-flow', logout, email);
    await call('GET', `/self-service/logout?token=${logout.body.logout_token}`);
    record('whoami-no-session', await call('GET', '/sessions/whoami'), email);
  });

  it('login, second factor, settings and recovery', async () => {
    const email = uniqueEmail('fixture');
    const { call } = client();
    const registration = await call('GET', '/self-service/registration/browser');
    await call('POST', `/self-service/registration?flow=${registration.body.id}`, {
      method: 'password',
      traits: { email },
      password: testPassword,
      csrf_token: csrfOf(registration.body),
    });

    const settings = await call('GET', '/self-service/settings/browser');
    record('settings-show-form', settings, email);
    record(
      'settings-weak-password',
      await call('POST', `/self-service/settings?flow=${settings.body.id}`, { method: 'password', password: 'short', csrf_token: csrfOf(settings.body) }),
      email,
    );
    const secret = settings.body.ui.nodes.find((node: any) => node.attributes.id === 'totp_secret_key').attributes.text.context.secret;
    const linked = await call('POST', `/self-service/settings?flow=${settings.body.id}`, {
      method: 'totp',
      totp_code: await generate({ secret }),
      csrf_token: csrfOf(settings.body),
    });
    record('settings-success-totp-linked', linked, email);

    const logout = await call('GET', '/self-service/logout/browser');
    await call('GET', `/self-service/logout?token=${logout.body.logout_token}`);
    const login = await call('GET', '/self-service/login/browser');
    record('login-choose-method', login, email);
    record(
      'login-invalid-credentials',
      await call('POST', `/self-service/login?flow=${login.body.id}`, {
        method: 'password',
        identifier: email,
        password: 'wrong password',
        csrf_token: csrfOf(login.body),
      }),
      email,
    );
    record(
      'login-csrf-violation',
      await call('POST', `/self-service/login?flow=${login.body.id}`, { method: 'password', identifier: email, password: testPassword, csrf_token: 'forged' }),
      email,
    );
    record(
      'login-second-factor-required',
      await call('POST', `/self-service/login?flow=${login.body.id}`, {
        method: 'password',
        identifier: email,
        password: testPassword,
        csrf_token: csrfOf(login.body),
      }),
      email,
    );
    record('whoami-aal2-required', await call('GET', '/sessions/whoami'), email);
    const second = await call('GET', '/self-service/login/browser?aal=aal2');
    record('login-second-factor', second, email);
    record(
      'login-success',
      await call('POST', `/self-service/login?flow=${second.body.id}`, {
        method: 'totp',
        totp_code: await nextTotpCode(secret),
        csrf_token: csrfOf(second.body),
      }),
      email,
    );

    const stranger = client();
    const recovery = await stranger.call('GET', '/self-service/recovery/browser');
    record('recovery-choose-method', recovery, email);
    const codeSent = await stranger.call('POST', `/self-service/recovery?flow=${recovery.body.id}`, {
      method: 'code',
      email,
      csrf_token: csrfOf(recovery.body),
    });
    record('recovery-code-sent', codeSent, email);
    const code = codeIn(await t.mail.waitForMail(email, 2));
    record(
      'recovery-invalid-code',
      await stranger.call('POST', `/self-service/recovery?flow=${recovery.body.id}`, {
        method: 'code',
        code: code === '000000' ? '111111' : '000000',
        csrf_token: csrfOf(codeSent.body),
      }),
      email,
    );
    record(
      'recovery-success',
      await stranger.call('POST', `/self-service/recovery?flow=${recovery.body.id}`, { method: 'code', code, csrf_token: csrfOf(codeSent.body) }),
      email,
    );
    const linkClient = client();
    const linkFlow = await linkClient.call('GET', '/self-service/recovery/browser');
    record(
      'recovery-link-sent',
      await linkClient.call('POST', `/self-service/recovery?flow=${linkFlow.body.id}`, { method: 'link', email, csrf_token: csrfOf(linkFlow.body) }),
      email,
    );
  });
});

describe('a fixture that is not committed', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('fails the test in every run, saying how to write it on purpose, and writes nothing', () => {
    vi.stubEnv('UPDATE_FIXTURES', '');
    expect(() => matchFixture('no-such-flow-state', { status: 200, body: {} })).toThrow('fixture no-such-flow-state.json is missing from');
    expect(() => matchFixture('no-such-flow-state', { status: 200, body: {} })).toThrow(updateFixturesCommand);
    expect(existsSync(join(fixturesDir, 'no-such-flow-state.json'))).toBe(false);
  });
});
