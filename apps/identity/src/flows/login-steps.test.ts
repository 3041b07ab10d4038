import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { linkTotp } from '../domain/identity-changes.js';
import { newTotpSecret } from '../domain/totp.js';
import { errorIdOf, renderedFlow, seedIdentity, setupFlowContext, shownMessageIds, testBrowser } from '../testing/flow-context.js';
import { startLogin, submitLogin } from './login-steps.js';

const t = setupFlowContext();

/** Opens a login flow in `browser` and submits `body` (with the browser's CSRF token) to it. */
async function logIn(browser: ReturnType<typeof testBrowser>, body: Record<string, unknown>, start: { aal?: string } = {}) {
  const flow = renderedFlow(await startLogin(t.ctx(), browser.request(), start));
  return { flow, outcome: await submitLogin(t.ctx(), browser.request(), { flowId: flow.id, body: { csrf_token: browser.csrf(), ...body } }) };
}

describe('login steps', () => {
  it('starts a first-factor flow for a caller without a session, shown on the login screen', async () => {
    const outcome = await startLogin(t.ctx(), testBrowser(t.ctx()).request(), {});
    expect(outcome).toMatchObject({
      kind: 'render',
      status: 200,
      screen: t.config.ui.login,
      flow: { kind: 'login', requestedAal: 'aal1', state: 'choose_method' },
    });
  });

  it('refuses a second-factor flow without a session', async () => {
    expect(errorIdOf(await startLogin(t.ctx(), testBrowser(t.ctx()).request(), { aal: 'aal2' }))).toBe('session_aal1_required');
  });

  it('shows the flow again with 4000006 for a wrong password, keeping the identifier', async () => {
    const { email } = await seedIdentity(t.ctx());
    const { outcome } = await logIn(testBrowser(t.ctx()), { method: 'password', identifier: email, password: 'not the password at all' });
    expect(outcome).toMatchObject({ kind: 'render', status: 400, csrf: 'caller' });
    expect(shownMessageIds(outcome)).toEqual([4000006]);
    expect(t.logins.at(-1)).toBe('invalid_credentials');
  });

  it('names each missing field on its node', async () => {
    const { outcome } = await logIn(testBrowser(t.ctx()), { method: 'password' });
    expect(shownMessageIds(outcome)).toEqual([4000002, 4000002]);
  });

  it('refuses a method the flow does not offer with 4010002', async () => {
    const { outcome } = await logIn(testBrowser(t.ctx()), { method: 'totp', totp_code: '123456' });
    expect(shownMessageIds(outcome)).toEqual([4010002]);
  });

  it('signs in with the right password: a session cookie, the device cookie, and success', async () => {
    const { identityId, email, password } = await seedIdentity(t.ctx());
    const browser = testBrowser(t.ctx());
    const { outcome } = await logIn(browser, { method: 'password', identifier: email, password });
    expect(outcome).toMatchObject({ kind: 'success', redirectTo: t.config.ui.afterLogin });
    expect(browser.jar.session).toBeDefined();
    expect(browser.jar.device).toBe(identityId);
    if (outcome.kind !== 'success') return;
    expect(await outcome.body()).toMatchObject({ session: { identity: { id: identityId }, authenticator_assurance_level: 'aal1' } });
    expect(t.logins.at(-1)).toBe('success');
  });

  it('sends an identity with TOTP on to the second factor, then signs it in at aal2', async () => {
    const { identityId, email, password } = await seedIdentity(t.ctx());
    const secret = newTotpSecret();
    await linkTotp(t.ctx().db, identityId, secret, 0, t.clock.now());
    const browser = testBrowser(t.ctx());
    const { outcome } = await logIn(browser, { method: 'password', identifier: email, password });
    expect(outcome).toEqual({ kind: 'redirect', to: `${t.config.identityUrl}/self-service/login/browser?aal=aal2`, status: 303 });
    expect(t.logins.at(-1)).toBe('second_factor_required');

    const wrong = await logIn(browser, { method: 'totp', totp_code: '000000' }, { aal: 'aal2' });
    expect(wrong.flow.requestedAal).toBe('aal2');
    expect(shownMessageIds(wrong.outcome)).toEqual([4000008]);

    const code = await generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) });
    const { outcome: second } = await logIn(browser, { method: 'totp', totp_code: code }, { aal: 'aal2' });
    expect(second).toMatchObject({ kind: 'success' });
    if (second.kind === 'success') expect(await second.body()).toMatchObject({ session: { authenticator_assurance_level: 'aal2' } });
  });

  it('tells an API client to move the browser when a second factor is needed', async () => {
    const { identityId, email, password } = await seedIdentity(t.ctx());
    await linkTotp(t.ctx().db, identityId, newTotpSecret(), 0, t.clock.now());
    const { outcome } = await logIn(testBrowser(t.ctx(), { json: true }), { method: 'password', identifier: email, password });
    expect(errorIdOf(outcome)).toBe('browser_location_change_required');
  });

  it('sends a signed-in browser on, and tells an API client it is already signed in', async () => {
    const { email, password } = await seedIdentity(t.ctx());
    const browser = testBrowser(t.ctx());
    await logIn(browser, { method: 'password', identifier: email, password });
    expect(await startLogin(t.ctx(), browser.request(), {})).toEqual({ kind: 'redirect', to: t.config.ui.afterLogin, status: 303 });
    const api = testBrowser(t.ctx(), { json: true });
    api.jar.session = browser.jar.session;
    expect(errorIdOf(await startLogin(t.ctx(), api.request(), {}))).toBe('session_already_available');
  });

  it('replaces an expired flow: a new flow for the browser, 410 with its id for an API client', async () => {
    for (const json of [false, true]) {
      const browser = testBrowser(t.ctx(), { json });
      const flow = renderedFlow(await startLogin(t.ctx(), browser.request(), {}));
      t.clock.advance(61 * 60_000);
      const outcome = await submitLogin(t.ctx(), browser.request(), { flowId: flow.id, body: { method: 'password' } });
      if (json) expect(errorIdOf(outcome)).toBe('self_service_flow_expired');
      else expect(outcome).toMatchObject({ kind: 'redirect', to: expect.stringMatching(new RegExp(`^${t.config.ui.login}\\?flow=(?!${flow.id})`)) });
    }
  });

  it('answers a flow that already signed someone in with 4010007', async () => {
    const { email, password } = await seedIdentity(t.ctx());
    const browser = testBrowser(t.ctx());
    const { flow } = await logIn(browser, { method: 'password', identifier: email, password });
    const outcome = await submitLogin(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, body: { method: 'password' } });
    expect(shownMessageIds(outcome)).toEqual([4010007]);
  });
});
