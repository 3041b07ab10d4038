import { describe, expect, it } from 'vitest';
import { testPassword } from '../testing/flows.js';
import { errorIdOf, renderedFlow, seedIdentity, setupFlowContext, shownMessageIds, testBrowser, uniqueEmail } from '../testing/flow-context.js';
import { startRegistration, submitRegistration } from './registration-steps.js';

const t = setupFlowContext();

async function register(browser: ReturnType<typeof testBrowser>, body: Record<string, unknown>) {
  const flow = renderedFlow(await startRegistration(t.ctx(), browser.request(), {}));
  return { flow, outcome: await submitRegistration(t.ctx(), browser.request(), { flowId: flow.id, body: { csrf_token: browser.csrf(), ...body } }) };
}

describe('registration steps', () => {
  it('starts a flow shown on the sign-up screen', async () => {
    const outcome = await startRegistration(t.ctx(), testBrowser(t.ctx()).request(), {});
    expect(outcome).toMatchObject({ kind: 'render', status: 200, screen: t.config.ui.registration, flow: { kind: 'registration', state: 'choose_method' } });
  });

  it('signs the new identity in and sends it on to verify its address', async () => {
    const browser = testBrowser(t.ctx());
    const email = uniqueEmail();
    const { outcome } = await register(browser, { method: 'password', traits: { email }, password: testPassword });
    expect(outcome).toMatchObject({ kind: 'success', redirectTo: expect.stringMatching(new RegExp(`^${t.config.ui.verification}\\?flow=`)) });
    expect(browser.jar.session).toBeDefined();
    expect(t.mails.at(-1)).toMatchObject({ to: email, template: 'verification_code' });
    if (outcome.kind !== 'success') return;
    expect(await outcome.body()).toMatchObject({
      identity: { traits: { email } },
      continue_with: [{ action: 'redirect_browser_to' }, { action: 'show_verification_ui' }],
    });
    expect(t.registrations.at(-1)).toBe('success');
  });

  it('shows the form again (400, or a 302 for browsers) with what is wrong with the input', async () => {
    const { outcome } = await register(testBrowser(t.ctx()), { method: 'password', traits: { email: 'not an address' }, password: '' });
    expect(outcome).toMatchObject({ kind: 'render', status: 400, screen: t.config.ui.registration, screenStatus: 302 });
    expect(shownMessageIds(outcome)).toEqual([4000040, 4000003]);
    expect(t.registrations.at(-1)).toBe('invalid_input');
  });

  it('refuses a weak password, a taken address and an unknown method', async () => {
    const weak = await register(testBrowser(t.ctx()), { method: 'password', traits: { email: uniqueEmail() }, password: 'short' });
    expect(shownMessageIds(weak.outcome)).toEqual([4000032]);
    const { email } = await seedIdentity(t.ctx());
    const taken = await register(testBrowser(t.ctx()), { method: 'password', traits: { email }, password: testPassword });
    expect(shownMessageIds(taken.outcome)).toEqual([4000007]);
    const unknown = await register(testBrowser(t.ctx()), { method: 'oidc' });
    expect(shownMessageIds(unknown.outcome)).toEqual([4010003]);
  });

  it('answers a completed flow with 4040002, without the address typed into it', async () => {
    const { flow } = await register(testBrowser(t.ctx()), { method: 'password', traits: { email: uniqueEmail() }, password: testPassword });
    const outcome = await submitRegistration(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, body: {} });
    expect(shownMessageIds(outcome)).toEqual([4040002]);
    expect(JSON.stringify(renderedFlow(outcome).ui)).not.toContain('@example.com');
  });

  it('sends a signed-in browser on (302), and tells an API client it is signed in', async () => {
    const browser = testBrowser(t.ctx());
    const { flow } = await register(browser, { method: 'password', traits: { email: uniqueEmail() }, password: testPassword });
    expect(await startRegistration(t.ctx(), browser.request(), {})).toEqual({ kind: 'redirect', to: t.config.ui.afterLogin, status: 303 });
    expect(await submitRegistration(t.ctx(), browser.request(), { flowId: flow.id, body: {} })).toEqual({
      kind: 'redirect',
      to: t.config.ui.afterLogin,
      status: 302,
    });
    const api = testBrowser(t.ctx(), { json: true });
    api.jar.session = browser.jar.session;
    expect(errorIdOf(await startRegistration(t.ctx(), api.request(), {}))).toBe('session_already_available');
  });

  it('replaces an expired flow: a new flow for the browser, 410 with its id for an API client', async () => {
    const browser = testBrowser(t.ctx());
    const api = testBrowser(t.ctx(), { json: true });
    const flows = [renderedFlow(await startRegistration(t.ctx(), browser.request(), {})), renderedFlow(await startRegistration(t.ctx(), api.request(), {}))];
    t.clock.advance(61 * 60_000);
    const forBrowser = await submitRegistration(t.ctx(), browser.request(), { flowId: flows[0]?.id ?? '', body: {} });
    expect(forBrowser).toMatchObject({ kind: 'redirect', to: expect.stringMatching(new RegExp(`^${t.config.ui.registration}\\?flow=(?!${flows[0]?.id})`)) });
    expect(errorIdOf(await submitRegistration(t.ctx(), api.request(), { flowId: flows[1]?.id ?? '', body: {} }))).toBe('self_service_flow_expired');
  });
});
