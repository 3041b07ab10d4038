import { describe, expect, it } from 'vitest';
import { errorIdOf, renderedFlow, seedIdentity, setupFlowContext, shownMessageIds, testBrowser } from '../testing/flow-context.js';
import { followRecoveryLink, startRecovery, submitRecovery } from './recovery-steps.js';

const t = setupFlowContext();

/** A recovery flow that mailed a code (or a link) to a new identity's address. */
async function mailed(method: 'code' | 'link', browser = testBrowser(t.ctx())) {
  const { email } = await seedIdentity(t.ctx());
  const flow = renderedFlow(await startRecovery(t.ctx(), browser.request(), {}));
  const outcome = await submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: { method, email, csrf_token: browser.csrf() } });
  const mail = t.mails.at(-1);
  if (mail?.to !== email) throw new Error('no recovery mail');
  return { flow, outcome, mail, browser };
}

const settingsScreen = () => expect.stringMatching(new RegExp(`^${t.config.ui.settings}\\?flow=`));

describe('recovery steps', () => {
  it('starts a flow shown on the recovery screen', async () => {
    const outcome = await startRecovery(t.ctx(), testBrowser(t.ctx()).request(), {});
    expect(outcome).toMatchObject({ kind: 'render', status: 200, screen: t.config.ui.recovery, flow: { kind: 'recovery', state: 'choose_method' } });
  });

  it('asks for an address (4000002) and names an unknown one (4000037), with 400', async () => {
    const browser = testBrowser(t.ctx());
    const flow = renderedFlow(await startRecovery(t.ctx(), browser.request(), {}));
    const missing = await submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: { csrf_token: browser.csrf() } });
    expect(missing).toMatchObject({ kind: 'render', status: 400 });
    expect(shownMessageIds(missing)).toEqual([4000002]);
    const unknown = await submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: { email: 'nobody@example.com', csrf_token: browser.csrf() } });
    expect(shownMessageIds(unknown)).toEqual([4000037]);
  });

  it('mails a code, refuses a wrong one with 4060006, and recovers with the right one into a settings flow', async () => {
    const { flow, outcome, mail, browser } = await mailed('code');
    expect(outcome).toMatchObject({ kind: 'render', status: 200, flow: { state: 'sent_email', active: 'code' } });
    const submit = (code: string) => submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: { code, csrf_token: browser.csrf() } });
    expect(shownMessageIds(await submit(mail.code === '000000' ? '111111' : '000000'))).toEqual([4060006]);
    const csrfBefore = browser.jar.csrf;
    expect(await submit(mail.code ?? '')).toMatchObject({ kind: 'redirect', to: settingsScreen() });
    expect(browser.jar.session).toBeDefined();
    expect(browser.jar.csrf).not.toBe(csrfBefore);
  });

  it('tells an API client that recovered by code to move the browser to settings', async () => {
    const { flow, mail, browser } = await mailed('code', testBrowser(t.ctx(), { json: true }));
    const outcome = await submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: { code: mail.code, csrf_token: browser.csrf() } });
    expect(errorIdOf(outcome)).toBe('browser_location_change_required');
  });

  it('recovers by the e-mailed link once; a used link starts a new flow', async () => {
    const { flow, mail } = await mailed('link');
    const token = new URL(mail.link ?? '').searchParams.get('token') ?? '';
    expect(await followRecoveryLink(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, token })).toMatchObject({
      kind: 'redirect',
      to: settingsScreen(),
    });
    expect(await followRecoveryLink(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, token })).toMatchObject({
      kind: 'redirect',
      to: expect.stringMatching(new RegExp(`^${t.config.ui.recovery}\\?flow=(?!${flow.id})`)),
    });
  });

  it('replaces a completed flow, and refuses a signed-in caller', async () => {
    const { flow, mail, browser } = await mailed('code');
    await submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: { code: mail.code, csrf_token: browser.csrf() } });
    expect(errorIdOf(await submitRecovery(t.ctx(), browser.request(), { flowId: flow.id, body: {} }))).toBe('session_already_available');
    expect(await startRecovery(t.ctx(), browser.request(), {})).toEqual({ kind: 'redirect', to: t.config.ui.afterLogin, status: 302 });
    const api = testBrowser(t.ctx(), { json: true });
    expect(errorIdOf(await submitRecovery(t.ctx(), api.request(), { flowId: flow.id, body: {} }))).toBe('self_service_flow_replaced');
  });

  it('sends an expired flow on to a new one: the screen for a browser, the flow for an API client', async () => {
    const flow = renderedFlow(await startRecovery(t.ctx(), testBrowser(t.ctx()).request(), {}));
    t.clock.advance(61 * 60_000);
    expect(await submitRecovery(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, body: {} })).toMatchObject({
      kind: 'redirect',
      to: expect.stringContaining(`${t.config.ui.recovery}?flow=`),
    });
    expect(await submitRecovery(t.ctx(), testBrowser(t.ctx(), { json: true }).request(), { flowId: flow.id, body: {} })).toMatchObject({
      kind: 'redirect',
      to: expect.stringContaining(`${t.config.identityUrl}/self-service/recovery/flows?id=`),
    });
  });
});
