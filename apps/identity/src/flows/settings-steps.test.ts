import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { linkTotp } from '../domain/identity-changes.js';
import { newTotpSecret } from '../domain/totp.js';
import { errorIdOf, renderedFlow, seedIdentity, setupFlowContext, shownMessageIds, testBrowser, uniqueEmail } from '../testing/flow-context.js';
import { fetchSettingsFlow, startSettings, submitSettings } from './settings-steps.js';

const t = setupFlowContext();

/** A browser signed in to a new identity, with a settings flow open. */
async function openSettings(options: { authenticatedAt?: Date; json?: boolean } = {}) {
  const identity = await seedIdentity(t.ctx());
  const browser = testBrowser(t.ctx(), { json: options.json ?? false });
  await browser.signIn(identity.identityId, options);
  const flow = renderedFlow(await startSettings(t.ctx(), browser.request(), {}));
  const submit = (body: Record<string, unknown>) =>
    submitSettings(t.ctx(), browser.request(), { flowId: flow.id, body: { csrf_token: browser.csrf(), ...body } });
  return { ...identity, browser, flow, submit };
}

describe('settings steps', () => {
  it('sends a caller without a session to log in, and tells an API client it has none', async () => {
    const returnTo = `${t.config.consoleUrl}/settings`;
    expect(await startSettings(t.ctx(), testBrowser(t.ctx()).request(), { returnTo })).toEqual({
      kind: 'redirect',
      to: `${t.config.identityUrl}/self-service/login/browser?return_to=${encodeURIComponent(returnTo)}`,
      status: 303,
    });
    expect(errorIdOf(await startSettings(t.ctx(), testBrowser(t.ctx(), { json: true }).request(), {}))).toBe('session_inactive');
  });

  it('starts a flow for the signed-in identity, shown with the identity on the settings screen', async () => {
    const { flow, identityId } = await openSettings();
    expect(flow).toMatchObject({ kind: 'settings', identityId, state: 'show_form' });
  });

  it('sends an aal1 session of an identity with TOTP to the second factor first', async () => {
    const { identityId } = await seedIdentity(t.ctx());
    await linkTotp(t.ctx().db, identityId, newTotpSecret(), 0, t.clock.now());
    const browser = testBrowser(t.ctx());
    await browser.signIn(identityId);
    expect(await startSettings(t.ctx(), browser.request(), {})).toEqual({
      kind: 'redirect',
      to: `${t.config.identityUrl}/self-service/login/browser?aal=aal2`,
      status: 303,
    });
  });

  it("refuses another identity's flow", async () => {
    const { flow } = await openSettings();
    const stranger = await openSettings();
    await expect(fetchSettingsFlow(t.ctx(), stranger.browser.request(), { flowId: flow.id })).rejects.toMatchObject({
      init: { id: 'security_identity_mismatch' },
    });
    expect(await fetchSettingsFlow(t.ctx(), stranger.browser.request(), { flowId: stranger.flow.id })).toMatchObject({ kind: 'render', status: 200 });
  });

  it('shows the form again (400) for a bad address, a missing password and an unknown method', async () => {
    const { submit } = await openSettings();
    const badAddress = await submit({ method: 'profile', traits: { email: 'not an address' } });
    expect(badAddress).toMatchObject({ kind: 'render', status: 400, screen: t.config.ui.settings });
    expect(shownMessageIds(badAddress)).toEqual([4000040]);
    expect(shownMessageIds(await submit({ method: 'password' }))).toEqual([4000002]);
    expect(shownMessageIds(await submit({ method: 'oidc' }))).toEqual([4010004]);
  });

  it('saves a new password, mails the owner, and goes back to the settings flow', async () => {
    const { submit, flow, email } = await openSettings();
    const outcome = await submit({ method: 'password', password: 'another long and unusual passphrase 43' });
    expect(outcome).toMatchObject({ kind: 'success', redirectTo: `${t.config.ui.settings}?flow=${flow.id}` });
    expect(t.mails.at(-1)).toMatchObject({ to: email, template: 'password_changed' });
    if (outcome.kind === 'success') expect(await outcome.body()).toMatchObject({ state: 'success', continue_with: [{ action: 'redirect_browser_to' }] });
  });

  it('changes the address and starts its verification', async () => {
    const { submit } = await openSettings();
    const email = uniqueEmail();
    const outcome = await submit({ method: 'profile', traits: { email } });
    expect(outcome).toMatchObject({ kind: 'success' });
    if (outcome.kind === 'success')
      expect(await outcome.body()).toMatchObject({
        identity: { traits: { email } },
        continue_with: [{ action: 'show_verification_ui' }, { action: 'redirect_browser_to' }],
      });
  });

  it('asks a session older than the privileged window to log in again', async () => {
    const { submit } = await openSettings({ authenticatedAt: new Date(t.clock.now().getTime() - 2 * 60 * 60_000) });
    expect(errorIdOf(await submit({ method: 'password', password: 'another long and unusual passphrase 44' }))).toBe('session_refresh_required');
  });

  it('links the offered authenticator and raises the session to aal2 under a new token', async () => {
    const { submit, flow, browser } = await openSettings();
    const secret = String(flow.context.totpSecret);
    const before = browser.jar.session;
    const outcome = await submit({ method: 'totp', totp_code: await generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) }) });
    expect(outcome).toMatchObject({ kind: 'success' });
    expect(browser.jar.session).not.toBe(before);
    expect((await browser.request().currentSession())?.aal).toBe('aal2');
  });

  it('replaces an expired flow: a new flow for the browser, 410 with its id for an API client', async () => {
    const browser = await openSettings();
    const api = await openSettings({ json: true });
    t.clock.advance(61 * 60_000);
    await browser.browser.signIn(browser.identityId);
    await api.browser.signIn(api.identityId);
    expect(await browser.submit({ method: 'password' })).toMatchObject({
      kind: 'redirect',
      to: expect.stringMatching(new RegExp(`^${t.config.ui.settings}\\?flow=(?!${browser.flow.id})`)),
    });
    expect(errorIdOf(await api.submit({ method: 'password' }))).toBe('self_service_flow_expired');
  });
});
