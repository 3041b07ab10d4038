import { describe, expect, it } from 'vitest';
import { errorIdOf, renderedFlow, seedIdentity, setupFlowContext, shownMessageIds, testBrowser } from '../testing/flow-context.js';
import { startVerification, submitVerification } from './verification-steps.js';

const t = setupFlowContext();

/** A verification flow that mailed a code to a new identity's address. */
async function codeSent(browser = testBrowser(t.ctx())) {
  const { email } = await seedIdentity(t.ctx());
  const flow = renderedFlow(await startVerification(t.ctx(), browser.request(), {}));
  const outcome = await submitVerification(t.ctx(), browser.request(), { flowId: flow.id, body: { email, csrf_token: browser.csrf() } });
  const mail = t.mails.at(-1);
  return { flow, outcome, email, code: mail?.to === email ? (mail.code ?? '') : '', browser };
}

const submitCode = (flowId: string, code: string, browser = testBrowser(t.ctx())) => submitVerification(t.ctx(), browser.request(), { flowId, body: { code } });

describe('verification steps', () => {
  it('starts a flow shown on the verification screen', async () => {
    const outcome = await startVerification(t.ctx(), testBrowser(t.ctx()).request(), {});
    expect(outcome).toMatchObject({ kind: 'render', status: 200, screen: t.config.ui.verification, flow: { kind: 'verification', state: 'choose_method' } });
  });

  it('mails a code to the address and shows the flow in sent_email', async () => {
    const { outcome, email, code } = await codeSent();
    expect(outcome).toMatchObject({ kind: 'render', status: 200, csrf: 'caller', flow: { state: 'sent_email', context: { email } } });
    expect(code).toMatch(/^\d{6}$/);
  });

  it('asks for the address when none is given (400, 4000002)', async () => {
    const flow = renderedFlow(await startVerification(t.ctx(), testBrowser(t.ctx()).request(), {}));
    const outcome = await submitVerification(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, body: {} });
    expect(outcome).toMatchObject({ kind: 'render', status: 400 });
    expect(shownMessageIds(outcome)).toEqual([4000002]);
  });

  it('refuses a wrong code with 4070006 and takes the right one', async () => {
    const { flow, code } = await codeSent();
    const wrong = await submitCode(flow.id, code === '000000' ? '111111' : '000000');
    expect(shownMessageIds(wrong)).toEqual([4070006]);
    const right = await submitCode(flow.id, code);
    expect(right).toMatchObject({ kind: 'render', status: 200, flow: { state: 'passed_challenge' } });
  });

  it('replaces a completed flow: a redirect for a browser, 410 with the new id for an API client', async () => {
    const { flow, code } = await codeSent();
    await submitCode(flow.id, code);
    expect(await submitCode(flow.id, code)).toMatchObject({
      kind: 'redirect',
      to: expect.stringMatching(new RegExp(`^${t.config.ui.verification}\\?flow=(?!${flow.id})`)),
    });
    expect(errorIdOf(await submitCode(flow.id, code, testBrowser(t.ctx(), { json: true })))).toBe('self_service_flow_replaced');
  });

  it('replaces the flow after five code attempts', async () => {
    const { flow } = await codeSent();
    for (let attempt = 0; attempt < 5; attempt++) expect((await submitCode(flow.id, '000000')).kind).toBe('render');
    expect(errorIdOf(await submitCode(flow.id, '000000', testBrowser(t.ctx(), { json: true })))).toBe('self_service_flow_replaced');
  });

  it("puts an e-mailed link's code into the form and sends the browser to it", async () => {
    const { flow, code } = await codeSent();
    const outcome = await submitVerification(t.ctx(), testBrowser(t.ctx()).request(), { flowId: flow.id, body: {}, linkCode: code });
    expect(outcome).toEqual({ kind: 'redirect', to: `${t.config.ui.verification}?flow=${flow.id}`, status: 303 });
  });

  it('sends an expired flow on to a new one: the screen for a browser, the flow for an API client', async () => {
    const flow = renderedFlow(await startVerification(t.ctx(), testBrowser(t.ctx()).request(), {}));
    t.clock.advance(61 * 60_000);
    expect(await submitCode(flow.id, '000000')).toMatchObject({ kind: 'redirect', to: expect.stringContaining(`${t.config.ui.verification}?flow=`) });
    expect(await submitCode(flow.id, '000000', testBrowser(t.ctx(), { json: true }))).toMatchObject({
      kind: 'redirect',
      to: expect.stringContaining(`${t.config.identityUrl}/self-service/verification/flows?id=`),
    });
  });
});
