import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { csrfOf, logIn, logOut, nextTotpCode, signUp, testPassword } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';
import { codeIn, linkIn } from '../testing/mail-catcher.js';

const t = setupIdentityServer();
const newPassword = 'a different and much longer passphrase 7';

describe('recovery', () => {
  it('by code: wrong code 200 + 4060006, right code 422 to a settings flow, the new password works and the old does not', async () => {
    const email = uniqueEmail('recover-code');
    await signUp(t.browser().api, email);
    const { api } = t.browser();
    const flow = await api.createBrowserRecoveryFlow();
    const sent = await api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(flow) } });
    expect(sent.state).toBe('sent_email');
    expect(sent.ui.messages?.[0]?.id).toBe(1060003);
    const code = codeIn(await t.mail.waitForMail(email, 2));

    const wrong = await api.updateRecoveryFlow({
      flow: flow.id,
      updateRecoveryFlowBody: { method: 'code', code: code === '000000' ? '111111' : '000000', csrf_token: csrfOf(sent) },
    });
    expect(wrong.ui.messages).toEqual([{ id: 4060006, type: 'error', text: 'The recovery code is invalid or has already been used. Please try again.' }]);

    const right = await failure(api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', code, csrf_token: csrfOf(sent) } }));
    expect(right.status).toBe(422);
    expect(right.body.error.id).toBe('browser_location_change_required');
    const settingsFlowId = new URL(right.body.redirect_browser_to).searchParams.get('flow') ?? '';
    const settings = await api.getSettingsFlow({ id: settingsFlowId });
    expect(settings.ui.messages?.[0]).toMatchObject({ id: 1060001, type: 'success' });
    expect(settings.ui.messages?.[0]?.text).toMatch(/within the next 60\.00 minutes\.$/);

    const changed = await api.updateSettingsFlow({
      flow: settings.id,
      updateSettingsFlowBody: { method: 'password', password: newPassword, csrf_token: csrfOf(settings) },
    });
    expect(changed.state).toBe('success');
    expect(changed.ui.messages).toEqual([{ id: 1050001, type: 'success', text: 'Your changes have been saved!' }]);

    expect((await failure(logIn(t.browser().api, email, testPassword))).status).toBe(400);
    expect((await logIn(t.browser().api, email, newPassword)).session.identity?.traits).toEqual({ email });
  });

  it.each(['link', 'code'] as const)('by %s for an unknown address: 400 with 4000037 on the email node, no mail, the flow stays open', async (method) => {
    const email = uniqueEmail(`recover-unknown-${method}`);
    const { api } = t.browser();
    const flow = await api.createBrowserRecoveryFlow();
    const refused = await failure(api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method, email, csrf_token: csrfOf(flow) } }));
    expect(refused.status).toBe(400);
    expect(refused.body.state).toBe('choose_method');
    const emailNode = refused.body.ui.nodes.find((node: { attributes: { name?: string } }) => node.attributes.name === 'email');
    expect(emailNode.messages).toEqual([{ id: 4000037, type: 'error', text: 'This account does not exist or has no login method configured.' }]);
    expect(t.mail.mailsTo(email)).toEqual([]);

    // The same flow still sends to a known address.
    const known = uniqueEmail(`recover-known-${method}`);
    await signUp(t.browser().api, known);
    const sent = await api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method, email: known, csrf_token: csrfOf(flow) } });
    expect(sent.state).toBe('sent_email');
  });

  it('by link: the e-mailed link opens a privileged session and the settings page', async () => {
    const email = uniqueEmail('recover-link');
    await signUp(t.browser().api, email);
    const browser = t.browser();
    const flow = await browser.api.createBrowserRecoveryFlow();
    const sent = await browser.api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'link', email, csrf_token: csrfOf(flow) } });
    expect(sent.ui.messages?.[0]?.id).toBe(1060002);
    const mail = await t.mail.waitForMail(email, 2);
    const link = linkIn(mail);
    expect(link).toMatch(/\/self-service\/recovery\?flow=[0-9a-f-]{36}&token=[A-Za-z0-9]{32}$/);

    const opened = await fetch(link, { redirect: 'manual', headers: { cookie: browser.jar.header() } });
    expect(opened.status).toBe(303);
    const location = opened.headers.get('location') ?? '';
    expect(location).toMatch(/\/ui\/settings\?flow=[0-9a-f-]{36}$/);
    const cookies = opened.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0])
      .join('; ');
    const session = await fetch(`${t.baseUrl}/sessions/whoami`, { headers: { cookie: cookies, accept: 'application/json' } });
    expect(session.status).toBe(200);
    expect(((await session.json()) as any).authentication_methods[0].method).toBe('link_recovery');

    // The link works once.
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.headers.get('location')).toMatch(/\/recover-password\?flow=/);
  });
});

describe('settings', () => {
  it('asks for a fresh login before a password change once the privileged hour is over', async () => {
    const email = uniqueEmail('stale');
    const { api } = t.browser();
    await signUp(api, email);
    // An hour of use (under the 30-minute idle timeout), so the session lives but its login is old.
    for (const minutes of [29, 29, 3]) {
      t.clock.advance(minutes * 60 * 1000);
      await api.toSession();
    }
    try {
      const flow = await api.createBrowserSettingsFlow();
      const { status, body } = await failure(
        api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { method: 'password', password: newPassword, csrf_token: csrfOf(flow) } }),
      );
      expect(status).toBe(403);
      expect(body.error.id).toBe('session_refresh_required');
      expect(body.redirect_browser_to).toContain('/self-service/login/browser?refresh=true&return_to=');
    } finally {
      t.clock.advance(-61 * 60 * 1000);
    }
  });

  it('rejects a weak or unchanged password on the password node', async () => {
    const email = uniqueEmail('same');
    const { api } = t.browser();
    await signUp(api, email);
    const flow = await api.createBrowserSettingsFlow();
    const same = await failure(
      api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { method: 'password', password: testPassword, csrf_token: csrfOf(flow) } }),
    );
    expect(same.status).toBe(400);
    const node = same.body.ui.nodes.find((candidate: { attributes: { name?: string } }) => candidate.attributes.name === 'password');
    expect(node.messages).toEqual([{ id: 4000039, type: 'error', text: 'The new password must be different from the old password.' }]);

    const breached = await failure(
      api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { method: 'password', password: 'password', csrf_token: csrfOf(flow) } }),
    );
    expect(breached.status).toBe(400);
    const breachedNode = breached.body.ui.nodes.find((candidate: { attributes: { name?: string } }) => candidate.attributes.name === 'password');
    expect(breachedNode.messages).toEqual([{ id: 4000034, type: 'error', text: 'The password has been found in data breaches and must no longer be used.' }]);
    expect((await logIn(t.browser().api, email, testPassword)).session.identity?.traits).toEqual({ email });
  });

  it('changes the e-mail: the new address starts unverified and gets a code', async () => {
    const email = uniqueEmail('old');
    const { api } = t.browser();
    await signUp(api, email);
    const flow = await api.createBrowserSettingsFlow();
    const next = uniqueEmail('new');
    const changed = await api.updateSettingsFlow({
      flow: flow.id,
      updateSettingsFlowBody: { method: 'profile', traits: { email: next }, csrf_token: csrfOf(flow) },
    });
    expect(changed.identity.traits).toEqual({ email: next });
    expect(changed.identity.verifiable_addresses?.[0]).toMatchObject({ value: next, verified: false, status: 'sent' });
    expect(changed.continue_with?.some((item) => item.action === 'show_verification_ui')).toBe(true);
    expect(codeIn(await t.mail.waitForMail(next))).toMatch(/^\d{6}$/);
    expect((await logIn(t.browser().api, next)).session.identity?.traits).toEqual({ email: next });
  });

  it('enrols TOTP; the next login needs the second factor: 422, whoami 403 session_aal2_required, then aal2', async () => {
    const email = uniqueEmail('totp');
    const { api } = t.browser();
    await signUp(api, email);
    const flow = await api.createBrowserSettingsFlow();
    const secretNode = flow.ui.nodes.find((node) => (node.attributes as { id?: string }).id === 'totp_secret_key');
    const secret = (secretNode?.attributes as { text: { context: { secret: string } } }).text.context.secret;
    expect(flow.ui.nodes.find((node) => (node.attributes as { id?: string }).id === 'totp_qr')?.attributes).toMatchObject({
      src: expect.stringMatching(/^data:image\/png;base64,/),
    });

    const wrong = await failure(
      api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { method: 'totp', totp_code: '000000', csrf_token: csrfOf(flow) } }),
    );
    expect(wrong.status).toBe(400);
    const linked = await api.updateSettingsFlow({
      flow: flow.id,
      updateSettingsFlowBody: { method: 'totp', totp_code: await generate({ secret }), csrf_token: csrfOf(flow) },
    });
    expect(linked.ui.nodes.some((node) => (node.attributes as { name?: string }).name === 'totp_unlink')).toBe(true);
    expect((await api.toSession()).authenticator_assurance_level).toBe('aal2');
    await logOut(api);

    const loginFlow = await api.createBrowserLoginFlow();
    const pending = await failure(
      api.updateLoginFlow({
        flow: loginFlow.id,
        updateLoginFlowBody: { method: 'password', identifier: email, password: testPassword, csrf_token: csrfOf(loginFlow) },
      }),
    );
    expect(pending.status).toBe(422);
    expect(pending.body.redirect_browser_to).toContain('/self-service/login/browser?aal=aal2');
    const whoami = await failure(api.toSession());
    expect(whoami.status).toBe(403);
    expect(whoami.body.error.id).toBe('session_aal2_required');

    const second = await api.createBrowserLoginFlow({ aal: 'aal2' });
    expect(second.ui.nodes.map((node) => (node.attributes as { name?: string }).name)).toEqual(['csrf_token', 'totp_code', 'method']);
    const upgraded = await api.updateLoginFlow({
      flow: second.id,
      updateLoginFlowBody: { method: 'totp', totp_code: await nextTotpCode(secret), csrf_token: csrfOf(second) },
    });
    expect(upgraded.session.authenticator_assurance_level).toBe('aal2');
    expect((await api.toSession()).authentication_methods?.map((method) => method.method)).toEqual(['password', 'totp']);
  });
});
