import type { FrontendApi } from '@ory/client-fetch';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { csrfOf, logIn, logOut, signUp } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';

// ASVS 2.8.4: a time-based code is accepted once. Identity keeps the last accepted time step per
// identity and refuses that step and older ones with Kratos' message for a wrong code.

const t = setupIdentityServer();
const codeAt = (secret: string, when: Date) => generate({ secret, epoch: Math.floor(when.getTime() / 1000) });

async function enrol(api: FrontendApi, email: string): Promise<string> {
  await signUp(api, email);
  const flow = await api.createBrowserSettingsFlow();
  const node = flow.ui.nodes.find((candidate) => (candidate.attributes as { id?: string }).id === 'totp_secret_key');
  const secret = (node?.attributes as { text: { context: { secret: string } } }).text.context.secret;
  await api.updateSettingsFlow({
    flow: flow.id,
    updateSettingsFlowBody: { method: 'totp', totp_code: await codeAt(secret, t.clock.now()), csrf_token: csrfOf(flow) },
  });
  return secret;
}

/** Logs out, passes the password, and submits `code` on a second-factor flow. */
async function secondFactorWith(api: FrontendApi, email: string, code: string) {
  await logOut(api);
  await failure(logIn(api, email));
  const flow = await api.createBrowserLoginFlow({ aal: 'aal2' });
  return api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'totp', totp_code: code, csrf_token: csrfOf(flow) } });
}

describe('a TOTP code is accepted once', () => {
  it('refuses the code that enrolled the authenticator, a code used to log in, and an older step; a later step works', async () => {
    const { api } = t.browser();
    const email = uniqueEmail('totp-once');
    const secret = await enrol(api, email);
    const enrolledWith = await codeAt(secret, t.clock.now());

    const replayedEnrolment = await failure(secondFactorWith(api, email, enrolledWith));
    expect(replayedEnrolment.status).toBe(400);
    expect(replayedEnrolment.body.ui.messages).toEqual([
      { id: 4000008, text: 'The provided authentication code is invalid, please try again.', type: 'error' },
    ]);

    t.clock.advance(30_000);
    const fresh = await codeAt(secret, t.clock.now());
    expect((await secondFactorWith(api, email, fresh)).session.authenticator_assurance_level).toBe('aal2');

    const replayed = await failure(secondFactorWith(api, email, fresh));
    expect(replayed.status).toBe(400);
    expect(replayed.body.ui.messages[0].id).toBe(4000008);
    // The step before the one used is still inside the ±30 s tolerance, but older than the last used.
    const older = await failure(secondFactorWith(api, email, await codeAt(secret, new Date(t.clock.now().getTime() - 30_000))));
    expect(older.body.ui.messages[0].id).toBe(4000008);
    expect((await failure(api.toSession())).body.error.id).toBe('session_aal2_required');

    t.clock.advance(30_000);
    expect((await secondFactorWith(api, email, await codeAt(secret, t.clock.now()))).session.authenticator_assurance_level).toBe('aal2');
  });
});
