import { describe, expect, it } from 'vitest';
import { codeIn } from '../testing/mail-catcher.js';
import { csrfOf, signUp } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';

const t = setupIdentityServer();
const password = 'a long and unusual passphrase 42';

describe('registration and verification through @ory/client-fetch', () => {
  it('registers, mails a code, verifies it, and whoami shows the address verified', async () => {
    const { api } = t.browser();
    const email = uniqueEmail('ada');
    const flow = await api.createBrowserRegistrationFlow();
    expect(flow.ui.nodes.map((node) => (node.attributes as { name?: string }).name)).toEqual(['csrf_token', 'traits.email', 'password', 'method']);

    const registered = await api.updateRegistrationFlow({
      flow: flow.id,
      updateRegistrationFlowBody: { method: 'password', traits: { email }, password, csrf_token: csrfOf(flow) },
    });
    expect(registered.identity.traits).toEqual({ email });
    expect(registered.session?.identity?.verifiable_addresses?.[0]).toMatchObject({ value: email, verified: false, status: 'sent' });
    const verificationItem = registered.continue_with?.find((item) => item.action === 'show_verification_ui');
    expect(verificationItem).toMatchObject({ flow: { verifiable_address: email } });
    const verificationFlowId = (verificationItem as { flow: { id: string } }).flow.id;

    const before = await api.toSession();
    expect(before.identity?.verifiable_addresses?.[0]?.verified).toBe(false);

    const code = codeIn(await t.mail.waitForMail(email));
    const verified = await api.updateVerificationFlow({
      flow: verificationFlowId,
      updateVerificationFlowBody: { method: 'code', code },
    });
    expect(verified.state).toBe('passed_challenge');
    expect(verified.ui.messages?.[0]).toMatchObject({ id: 1080002, type: 'success' });

    const after = await api.toSession();
    expect(after.identity?.verifiable_addresses?.[0]).toMatchObject({ verified: true, status: 'completed' });
  });

  it('answers a wrong code with 200 and message 4070006, and replaces the flow after five wrong codes', async () => {
    const { api } = t.browser();
    const email = uniqueEmail('wrong-code');
    const flow = await api.createBrowserRegistrationFlow();
    const registered = await api.updateRegistrationFlow({
      flow: flow.id,
      updateRegistrationFlowBody: { method: 'password', traits: { email }, password, csrf_token: csrfOf(flow) },
    });
    const flowId = (registered.continue_with?.find((item) => item.action === 'show_verification_ui') as { flow: { id: string } }).flow.id;
    const code = codeIn(await t.mail.waitForMail(email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let attempt = 1; attempt <= 5; attempt++) {
      const answer = await api.updateVerificationFlow({ flow: flowId, updateVerificationFlowBody: { method: 'code', code: wrong } });
      expect(answer.state).toBe('sent_email');
      expect(answer.ui.messages).toEqual([
        { id: 4070006, type: 'error', text: 'The verification code is invalid or has already been used. Please try again.' },
      ]);
    }
    const sixth = await failure(api.updateVerificationFlow({ flow: flowId, updateVerificationFlowBody: { method: 'code', code } }));
    expect(sixth.status).toBe(410);
    expect(sixth.body.error.id).toBe('self_service_flow_replaced');
    expect(sixth.body.use_flow_id).toMatch(/^[0-9a-f-]{36}$/);
    // Even the right code does not pass on a flow that had too many attempts.
    expect((await api.toSession()).identity?.verifiable_addresses?.[0]?.verified).toBe(false);
  });

  it('rejects an existing e-mail with 4000007 and keeps what was typed', async () => {
    const email = uniqueEmail('twice');
    const first = t.browser().api;
    const flow = await first.createBrowserRegistrationFlow();
    await first.updateRegistrationFlow({
      flow: flow.id,
      updateRegistrationFlowBody: { method: 'password', traits: { email }, password, csrf_token: csrfOf(flow) },
    });

    const second = t.browser().api;
    const again = await second.createBrowserRegistrationFlow();
    const { status, body } = await failure(
      second.updateRegistrationFlow({
        flow: again.id,
        updateRegistrationFlowBody: { method: 'password', traits: { email: email.toUpperCase() }, password, csrf_token: csrfOf(again) },
      }),
    );
    expect(status).toBe(400);
    expect(body.ui.messages).toEqual([
      { id: 4000007, type: 'error', text: 'An account with the same identifier (email, phone, username, ...) exists already.' },
    ]);
  });

  it('answers weak passwords with 400 flows carrying the reference texts', async () => {
    const { api } = t.browser();
    const email = uniqueEmail('weak');
    const attempt = async (candidate: string) => {
      const flow = await api.createBrowserRegistrationFlow();
      const { status, body } = await failure(
        api.updateRegistrationFlow({
          flow: flow.id,
          updateRegistrationFlowBody: { method: 'password', traits: { email }, password: candidate, csrf_token: csrfOf(flow) },
        }),
      );
      expect(status).toBe(400);
      const node = body.ui.nodes.find((candidateNode: { attributes: { name?: string } }) => candidateNode.attributes.name === 'password');
      expect(node.attributes.value).toBeUndefined();
      return node.messages;
    };
    expect(await attempt('short')).toEqual([
      { id: 4000032, type: 'error', text: 'The password must be at least 8 characters long, but got 5.', context: { min_length: 8, actual_length: 5 } },
    ]);
    expect(await attempt(email)).toEqual([{ id: 4000031, type: 'error', text: 'The password can not be used because it is too similar to the identifier.' }]);
    const breached = [{ id: 4000034, type: 'error', text: 'The password has been found in data breaches and must no longer be used.' }];
    expect(await attempt('password')).toEqual(breached);
    expect(await attempt('Qwertyuiop')).toEqual(breached);
    // None of the refusals created the account: the address is still free.
    expect(await signUp(api, email)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('validates the body before CSRF: missing fields come back on their nodes', async () => {
    const { api } = t.browser();
    const flow = await api.createBrowserRegistrationFlow();
    const { status, body } = await failure(
      api.updateRegistrationFlow({
        flow: flow.id,
        updateRegistrationFlowBody: { method: 'password', traits: { email: 'not-an-email' }, password: '', csrf_token: 'forged' },
      }),
    );
    expect(status).toBe(400);
    const byName = (name: string) => body.ui.nodes.find((node: { attributes: { name?: string } }) => node.attributes.name === name);
    expect(byName('traits.email').messages).toEqual([{ id: 4000040, type: 'error', text: 'Enter a valid email address', context: { value: 'not-an-email' } }]);
    expect(byName('traits.email').attributes.value).toBe('not-an-email');
    expect(byName('password').messages[0]).toMatchObject({ id: 4000003, text: 'length must be >= 1, but got 0' });
  });

  it('refuses a registration while logged in', async () => {
    const { api } = t.browser();
    const email = uniqueEmail('logged-in');
    const flow = await api.createBrowserRegistrationFlow();
    await api.updateRegistrationFlow({
      flow: flow.id,
      updateRegistrationFlowBody: { method: 'password', traits: { email }, password, csrf_token: csrfOf(flow) },
    });
    const { status, body } = await failure(api.createBrowserRegistrationFlow());
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ id: 'session_already_available', message: 'you are already logged in' });
  });
});
