import type { FrontendApi } from '@ory/client-fetch';
import { describe, expect, it } from 'vitest';
import { csrfOf, logIn, signUp } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';
import { codeIn, linkIn } from '../testing/mail-catcher.js';

// ASVS 2.5.x / 3.3.3: a completed recovery ends every session of the identity and withdraws every
// other recovery code and link; a new password withdraws the pending codes and links too.

const t = setupIdentityServer();
const newPassword = 'a different and much longer passphrase 7';

/** Asks for a recovery mail in `api`'s browser; answers the flow and the n-th mail to `email`. */
async function requestRecovery(api: FrontendApi, email: string, method: 'code' | 'link', mailNumber: number) {
  const flow = await api.createBrowserRecoveryFlow();
  const sent = await api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method, email, csrf_token: csrfOf(flow) } });
  return { sent, mail: await t.mail.waitForMail(email, mailNumber) };
}

const recoverWithCode = (api: FrontendApi, sent: { id: string; ui: { nodes: { attributes: unknown }[] } }, code: string) =>
  failure(api.updateRecoveryFlow({ flow: sent.id, updateRecoveryFlowBody: { method: 'code', code, csrf_token: csrfOf(sent) } }));

describe('recovery and password changes withdraw what an attacker could still hold', () => {
  it('a recovery ends every session of the identity, and the other pending code and link stop working', async () => {
    const email = uniqueEmail('recover-revoke');
    const owner = t.browser();
    await signUp(owner.api, email);
    const stolen = t.browser();
    await logIn(stolen.api, email);

    const byLink = t.browser();
    const { mail: linkMail } = await requestRecovery(byLink.api, email, 'link', 2);
    const byOtherCode = t.browser();
    const other = await requestRecovery(byOtherCode.api, email, 'code', 3);
    const recovering = t.browser();
    const mine = await requestRecovery(recovering.api, email, 'code', 4);

    expect((await recoverWithCode(recovering.api, mine.sent, codeIn(mine.mail))).body.error.id).toBe('browser_location_change_required');
    expect((await recovering.api.toSession()).identity?.traits).toEqual({ email });
    for (const browser of [owner, stolen]) expect((await failure(browser.api.toSession())).status).toBe(401);

    const refused = await byOtherCode.api.updateRecoveryFlow({
      flow: other.sent.id,
      updateRecoveryFlowBody: { method: 'code', code: codeIn(other.mail), csrf_token: csrfOf(other.sent) },
    });
    expect(refused.ui.messages?.[0]?.id).toBe(4060006);

    const opened = await fetch(linkIn(linkMail), { redirect: 'manual', headers: { cookie: byLink.jar.header() } });
    expect(opened.status).toBe(303);
    const replacement = await byLink.api.getRecoveryFlow({ id: new URL(opened.headers.get('location') ?? '').searchParams.get('flow') ?? '' });
    expect(replacement.ui.messages?.[0]?.id).toBe(4060004);
    expect((await failure(byLink.api.toSession())).status).toBe(401);
  });

  it('a new password chosen in settings withdraws a pending recovery code', async () => {
    const email = uniqueEmail('password-revoke');
    const owner = t.browser();
    await signUp(owner.api, email);
    const stranger = t.browser();
    const pending = await requestRecovery(stranger.api, email, 'code', 2);

    const settings = await owner.api.createBrowserSettingsFlow();
    await owner.api.updateSettingsFlow({
      flow: settings.id,
      updateSettingsFlowBody: { method: 'password', password: newPassword, csrf_token: csrfOf(settings) },
    });

    const refused = await stranger.api.updateRecoveryFlow({
      flow: pending.sent.id,
      updateRecoveryFlowBody: { method: 'code', code: codeIn(pending.mail), csrf_token: csrfOf(pending.sent) },
    });
    expect(refused.ui.messages?.[0]?.id).toBe(4060006);
    expect((await failure(stranger.api.toSession())).status).toBe(401);
  });
});
