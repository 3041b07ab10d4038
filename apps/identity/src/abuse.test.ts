import type { LightMyRequestResponse } from 'fastify';
import { generate } from 'otplib';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadIdentityConfig } from './env.js';
import { csrfCookieName, tokensMatch } from './flows/csrf.js';
import { sessionCookieName } from './http/cookies.js';
import { csrfNodeOf, injectBrowser, jsonOf, latestCode, logIn, outcomeOf, signUp, suiteTally, testPassword } from './testing/inject-browser.js';
import { setupTestApp } from './testing/setup-test-app.js';

/**
 * Identity under attack, with the production limits (no IDENTITY_RATE_LIMIT_MULTIPLIER) on an
 * https deployment: credential stuffing, code guessing, session fixation, cross-site forms, open
 * redirects through return_to, and the cookie flags that hold it together. Client addresses are
 * set per request, as the per-IP limits key on them.
 */
const identityUrl = 'https://id.meterway.test';
const consoleUrl = 'https://console.meterway.test';
const evilOrigin = 'https://evil.example.net';
const t = setupTestApp({ IDENTITY_URL: identityUrl, CONSOLE_URL: consoleUrl });
const counts = suiteTally('identity abuse');

let addresses = 0;
/** A client address nobody has used yet in this file. */
const freshIp = () => {
  addresses++;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
};
const browser = (ip = freshIp()) => injectBrowser(() => t.app, counts, { identityUrl, ip });
let people = 0;
const newEmail = (what: string) => `abuse-${what}-${Date.now().toString(36)}-${people++}@example.com`;

afterAll(() => {
  // The suite's closing line (each test fails on its own violations).
  // eslint-disable-next-line no-console
  console.log(counts.summary());
});
let violationsBefore = 0;
beforeEach(() => {
  violationsBefore = counts.tally.violations.length;
});
afterEach(() => {
  expect(counts.tally.violations.slice(violationsBefore)).toEqual([]);
});

/** Ends `client`'s session through the logout flow; the device cookie stays, as in a browser. */
async function logOut(client: ReturnType<typeof browser>) {
  const flow = jsonOf(await client.get('/self-service/logout/browser'));
  await client.get(`/self-service/logout?token=${flow.logout_token}`);
}

const sessionCookieSet = (response: LightMyRequestResponse) =>
  (response.cookies as { name: string; value: string }[]).some((cookie) => cookie.name === sessionCookieName && cookie.value);
const messageIds = (response: LightMyRequestResponse): number[] => (jsonOf(response)?.ui?.messages ?? []).map((message: { id: number }) => message.id);

/** A signed-up person whose address is verified, signed in in `home`. */
async function person(what: string) {
  const home = browser();
  const account = await signUp(home, newEmail(what), { verify: true });
  return { ...account, home };
}

describe('credential stuffing', () => {
  it('stops one address trying many identifiers after 30 attempts, whatever X-Forwarded-For claims', async () => {
    // TRUST_PROXY is unset here, so the header is ignored (trust-proxy.test.ts covers a trusted proxy).
    const victim = await person('stuffing-victim');
    const attacker = browser();
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 30; attempt++) {
      const forwarded = { 'x-forwarded-for': `192.0.2.${attempt + 1}` };
      outcomes.push(outcomeOf(await logIn(attacker, newEmail(`stuffed-${attempt}`), 'password123 guess', { headers: forwarded })));
    }
    expect(outcomes).toEqual(Array(30).fill('400'));
    const blocked = await logIn(attacker, newEmail('stuffed-31'), 'password123 guess', { headers: { 'x-forwarded-for': '192.0.2.99' } });
    expect(outcomeOf(blocked)).toBe('429 rate_limit_exceeded');
    expect(jsonOf(blocked).error.details.retry_after).toBeGreaterThan(0);
    expect(blocked.headers['retry-after']).toBe(String(jsonOf(blocked).error.details.retry_after));
    // Read by a person in the console's Failure alert: minutes and seconds, not a count of seconds.
    expect(jsonOf(blocked).error.reason).toMatch(/^Too many attempts\. Try again in (\d+ minutes?)?( ?\d+ seconds?)?\.$/);
    expect(jsonOf(blocked).error.reason).not.toMatch(/\d{3} seconds/);
    // Even the right password from that address is refused: the limit is no oracle for it.
    const rightPassword = await logIn(attacker, victim.email);
    expect(outcomeOf(rightPassword)).toBe('429 rate_limit_exceeded');
    counts.check(!sessionCookieSet(rightPassword), () => 'a blocked address was handed a session');
    // The limit is per address: the victim, elsewhere, signs in.
    expect((await logIn(browser(), victim.email)).statusCode).toBe(200);
  });

  it("stops many addresses spread over one identifier after 100 failures an hour, however it is spelt, but not its owner's browser, nor its owner with the mailed code", async () => {
    const victim = await person('spread');
    const bystander = await person('spread-bystander');
    // The owner signed in on this browser before: it carries the identity's device cookie.
    const owner = browser();
    expect((await logIn(owner, victim.email)).statusCode).toBe(200);
    await logOut(owner);
    const spellings = [
      victim.email,
      victim.email.toUpperCase(),
      `  ${victim.email}  `,
      // Full-width letters fold to ASCII under NFKC, as the stored address was folded.
      [...victim.email].map((char) => (/[a-z]/.test(char) ? String.fromCharCode(char.charCodeAt(0) + 0xfee0) : char)).join(''),
    ];
    const outcomes: string[] = [];
    for (let round = 0; round < 100; round++)
      outcomes.push(outcomeOf(await logIn(browser(), spellings[round % 4] ?? victim.email, `wrong password number ${round}`)));
    expect(outcomes).toEqual(Array(100).fill('400'));
    // Capped: a new browser is asked for a code mailed to the address, with the password, whether
    // the password it sent was right or wrong (the answer tells a stranger nothing).
    const newBrowser = browser();
    const guesser = browser();
    const wrong = await logIn(guesser, victim.email, 'yet another guess');
    const locked = await logIn(newBrowser, victim.email);
    for (const answer of [wrong, locked]) {
      expect(answer.statusCode).toBe(400);
      expect(jsonOf(answer)).toMatchObject({ state: 'sent_email', active: 'code' });
      expect(messageIds(answer)).toEqual([1010014]);
      counts.check(!sessionCookieSet(answer), () => 'a locked identifier was handed a session on a browser it never used');
    }
    expect(jsonOf(locked).ui.nodes.map((node: { attributes: { name: string } }) => node.attributes.name)).toEqual([
      'csrf_token',
      'identifier',
      'code',
      'method',
    ]);
    // One mail for both flows (at most one every 10 minutes): a stranger cannot flood the owner's mailbox.
    const mails = jsonOf(await newBrowser.get(`/dev/outbox?to=${encodeURIComponent(victim.email)}`)).messages.filter(
      (mail: { template: string }) => mail.template === 'login_code',
    );
    expect(mails).toHaveLength(1);
    const code = await latestCode(newBrowser, victim.email);
    const submitCode = (who: ReturnType<typeof browser>, flowId: string, guess: string) =>
      who.post(`/self-service/login?flow=${flowId}`, { method: 'code', code: guess, identifier: victim.email, csrf_token: who.csrf() });
    // The right code on the flow sent a wrong password, or a wrong code on the flow sent the right one: the same 400.
    const withWrongPassword = await submitCode(guesser, jsonOf(wrong).id, code);
    const withWrongCode = await submitCode(newBrowser, jsonOf(locked).id, code === '000000' ? '111111' : '000000');
    for (const answer of [withWrongPassword, withWrongCode]) {
      expect(answer.statusCode).toBe(400);
      expect(messageIds(answer)).toEqual([4000006]);
      counts.check(!sessionCookieSet(answer), () => 'half of the code and password signed someone in');
    }
    // The code works on the owner's own flow, even though a stranger's attempt asked for it.
    const signedIn = await submitCode(newBrowser, jsonOf(locked).id, code);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(jsonOf(signedIn).session.identity.traits.email).toBe(victim.email);
    // Once: the same code signs no one in again.
    const later = browser();
    const again = await logIn(later, victim.email);
    expect(outcomeOf(await submitCode(later, jsonOf(again).id, code))).toBe('400');
    expect((await logIn(owner, victim.email)).statusCode).toBe(200);
    expect((await logIn(browser(), bystander.email)).statusCode).toBe(200);
  });

  it('gives a burst of simultaneous guesses at one identifier from one address no more than its 5 free tries, and holds up no one elsewhere', async () => {
    const victim = await person('burst');
    const attackerIp = freshIp();
    const flows = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const attacker = browser(attackerIp);
        return { attacker, id: jsonOf(await attacker.get('/self-service/login/browser')).id as string };
      }),
    );
    const burst = await Promise.all(
      flows.map(({ attacker, id }, n) =>
        attacker.post(`/self-service/login?flow=${id}`, {
          method: 'password',
          identifier: victim.email,
          password: `burst guess ${n}`,
          csrf_token: attacker.csrf(),
        }),
      ),
    );
    const judged = burst.filter((answer) => answer.statusCode === 400).length;
    counts.check(judged <= 5, () => `${judged} of 30 simultaneous password guesses from one address were judged`);
    expect(burst.every((answer) => ['400', '429 rate_limit_exceeded'].includes(outcomeOf(answer)))).toBe(true);
    expect(outcomeOf(await logIn(browser(attackerIp), victim.email))).toBe('429 rate_limit_exceeded');
    expect((await logIn(browser(), victim.email)).statusCode).toBe(200);
  });

  it('locks the second factor after 10 wrong codes from any addresses, bursts included, and leaves the aal1 session at aal1', async () => {
    const victim = await person('totp-guess');
    const settings = jsonOf(await victim.home.get('/self-service/settings/browser'));
    const secret = settings.ui.nodes.find((node: any) => node.attributes.id === 'totp_secret_key').attributes.text.context.secret;
    const linked = await victim.home.post(`/self-service/settings?flow=${settings.id}`, {
      method: 'totp',
      totp_code: await generate({ secret }),
      csrf_token: victim.home.csrf(),
    });
    expect(linked.statusCode).toBe(200);
    // The attacker has the password: the first factor passes, the second is what is guessed.
    const attacker = browser();
    expect(outcomeOf(await logIn(attacker, victim.email))).toBe('422 browser_location_change_required');
    const flow = jsonOf(await attacker.get('/self-service/login/browser?aal=aal2'));
    const right = await generate({ secret });
    const wrongCodes = Array.from({ length: 30 }, (_, n) => String((Number(right) + 500_000 + n) % 1_000_000).padStart(6, '0'));
    const burst = await Promise.all(
      wrongCodes.map((code) =>
        attacker.post(`/self-service/login?flow=${flow.id}`, { method: 'totp', totp_code: code, csrf_token: attacker.csrf() }, { ip: freshIp() }),
      ),
    );
    const judged = burst.filter((answer) => answer.statusCode === 400).length;
    counts.check(judged <= 10, () => `${judged} of 30 simultaneous TOTP guesses were judged`);
    expect(burst.every((answer) => ['400', '429 rate_limit_exceeded'].includes(outcomeOf(answer)))).toBe(true);
    const late = await attacker.post(
      `/self-service/login?flow=${flow.id}`,
      { method: 'totp', totp_code: await generate({ secret }), csrf_token: attacker.csrf() },
      { ip: freshIp() },
    );
    expect(outcomeOf(late)).toBe('429 rate_limit_exceeded');
    expect(outcomeOf(await attacker.get('/sessions/whoami'))).toBe('403 session_aal2_required');
  });
});

describe('code guessing', () => {
  it('verification: five wrong codes end the flow, and the right code then works neither there nor on the replacement', async () => {
    const victim = browser();
    const { email, verificationFlowId } = await signUp(victim, newEmail('verification-guess'));
    const code = await latestCode(victim, email);
    const wrong = (n: number) => String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
    // Submitting a code needs no CSRF token (a code typed on another device must work), so anyone may try.
    const attacker = browser();
    for (let guess = 0; guess < 5; guess++) {
      const answer = await attacker.post(`/self-service/verification?flow=${verificationFlowId}`, { method: 'code', code: wrong(guess) }, { ip: freshIp() });
      expect(answer.statusCode).toBe(200);
      expect(messageIds(answer)).toEqual([4070006]);
    }
    const late = await attacker.post(`/self-service/verification?flow=${verificationFlowId}`, { method: 'code', code });
    expect(outcomeOf(late)).toBe('410 self_service_flow_replaced');
    expect(outcomeOf(await victim.post(`/self-service/verification?flow=${verificationFlowId}`, { method: 'code', code }))).toBe(
      '410 self_service_flow_replaced',
    );
    const replacement = await victim.post(`/self-service/verification?flow=${jsonOf(late).use_flow_id}`, { method: 'code', code });
    expect(messageIds(replacement)).toEqual([4070006]);
    expect(jsonOf(await victim.get('/sessions/whoami')).identity.verifiable_addresses[0].verified).toBe(false);

    // The owner still gets in the ordinary way: a new code on a new flow.
    const fresh = jsonOf(await victim.get('/self-service/verification/browser'));
    await victim.post(`/self-service/verification?flow=${fresh.id}`, { method: 'code', email, csrf_token: victim.csrf() });
    const verified = await victim.post(`/self-service/verification?flow=${fresh.id}`, { method: 'code', code: await latestCode(victim, email) });
    expect(jsonOf(verified).state).toBe('passed_challenge');
  });

  it('verification: new codes for one address stop after five an hour, from however many addresses', async () => {
    const victim = browser();
    const { email } = await signUp(victim, newEmail('verification-resend'), { verify: false });
    const statuses: number[] = [];
    for (let resend = 0; resend < 6; resend++) {
      const attacker = browser();
      const flow = jsonOf(await attacker.get('/self-service/verification/browser'));
      const sent = await attacker.post(`/self-service/verification?flow=${flow.id}`, { method: 'code', email, csrf_token: attacker.csrf() });
      statuses.push(sent.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('verification: twenty guesses sent at once from twenty addresses still get five tries, not twenty', async () => {
    const victim = browser();
    const { email, verificationFlowId } = await signUp(victim, newEmail('verification-burst'));
    const code = await latestCode(victim, email);
    const attacker = browser();
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        attacker.post(
          `/self-service/verification?flow=${verificationFlowId}`,
          { method: 'code', code: String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0') },
          { ip: freshIp() },
        ),
      ),
    );
    const judged = burst.filter((answer) => answer.statusCode === 200).length;
    counts.check(judged <= 5, () => `verification: ${judged} of 20 simultaneous guesses were judged`);
    expect(burst.every((answer) => ['200', '410 self_service_flow_replaced'].includes(outcomeOf(answer)))).toBe(true);
    expect(outcomeOf(await attacker.post(`/self-service/verification?flow=${verificationFlowId}`, { method: 'code', code }))).toBe(
      '410 self_service_flow_replaced',
    );
    expect(jsonOf(await victim.get('/sessions/whoami')).identity.verifiable_addresses[0].verified).toBe(false);
  });

  /** An attacker's recovery flow for the victim's address; the code goes to the victim's mailbox. */
  async function recoveryAgainst(email: string) {
    const attacker = browser();
    const flow = jsonOf(await attacker.get('/self-service/recovery/browser'));
    const sent = await attacker.post(`/self-service/recovery?flow=${flow.id}`, { method: 'code', email, csrf_token: attacker.csrf() });
    expect(jsonOf(sent).state).toBe('sent_email');
    return { attacker, flowId: flow.id as string, code: await latestCode(attacker, email) };
  }

  it('recovery: five wrong codes end the flow, and the right code then opens no session', async () => {
    const victim = await person('recovery-guess');
    const { attacker, flowId, code } = await recoveryAgainst(victim.email);
    for (let guess = 0; guess < 5; guess++) {
      const wrongCode = String((Number(code) + 1 + guess) % 1_000_000).padStart(6, '0');
      const answer = await attacker.post(
        `/self-service/recovery?flow=${flowId}`,
        { method: 'code', code: wrongCode, csrf_token: attacker.csrf() },
        { ip: freshIp() },
      );
      expect(answer.statusCode).toBe(200);
      expect(messageIds(answer)).toEqual([4060006]);
    }
    const late = await attacker.post(`/self-service/recovery?flow=${flowId}`, { method: 'code', code, csrf_token: attacker.csrf() });
    expect(outcomeOf(late)).toBe('410 self_service_flow_replaced');
    counts.check(!sessionCookieSet(late), () => 'a guessed recovery handed out a session');
    expect((await attacker.get('/sessions/whoami')).statusCode).toBe(401);
    expect((await logIn(browser(), victim.email)).statusCode).toBe(200);
  });

  it('recovery: twenty guesses sent at once from twenty addresses still get five tries, not twenty', async () => {
    const victim = await person('recovery-burst');
    const { attacker, flowId, code } = await recoveryAgainst(victim.email);
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        attacker.post(
          `/self-service/recovery?flow=${flowId}`,
          { method: 'code', code: String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0'), csrf_token: attacker.csrf() },
          { ip: freshIp() },
        ),
      ),
    );
    const judged = burst.filter((answer) => answer.statusCode === 200).length;
    counts.check(judged <= 5, () => `recovery: ${judged} of 20 simultaneous guesses were judged`);
    expect(burst.every((answer) => ['200', '410 self_service_flow_replaced'].includes(outcomeOf(answer)))).toBe(true);
    expect(outcomeOf(await attacker.post(`/self-service/recovery?flow=${flowId}`, { method: 'code', code, csrf_token: attacker.csrf() }))).toBe(
      '410 self_service_flow_replaced',
    );
    expect((await attacker.get('/sessions/whoami')).statusCode).toBe(401);
  });
});

describe('session fixation', () => {
  const plantedSession = `ory_st_${'A'.repeat(32)}`;
  // 32 bytes the attacker knows, in the cookie's own format.
  const plantedCsrf = Buffer.alloc(32, 7).toString('base64');
  const csrfName = csrfCookieName(identityUrl);

  it('replaces a session and a CSRF cookie planted before login; the planted token never authenticates', async () => {
    const victim = await person('fixation');
    const target = browser();
    target.jar.set(sessionCookieName, plantedSession);
    target.jar.set(csrfName, plantedCsrf);
    const loggedIn = await logIn(target, victim.email);
    expect(loggedIn.statusCode).toBe(200);
    counts.check(target.sessionToken() !== plantedSession, () => 'the planted session token survived the login');
    counts.check(target.csrfCookie() !== plantedCsrf, () => 'the planted CSRF cookie survived the login');
    expect(jsonOf(await target.get('/sessions/whoami')).identity.traits.email).toBe(victim.email);
    const attacker = browser();
    attacker.jar.set(sessionCookieName, plantedSession);
    expect((await attacker.get('/sessions/whoami')).statusCode).toBe(401);
    expect((await browser().get('/sessions/whoami', { headers: { 'x-session-token': plantedSession } })).statusCode).toBe(401);

    const newcomer = browser();
    newcomer.jar.set(sessionCookieName, plantedSession);
    await signUp(newcomer, newEmail('fixation-newcomer'));
    counts.check(newcomer.sessionToken() !== plantedSession, () => 'the planted session token survived a registration');
  });

  it('a refresh login issues a new session id and token, and the old token stops working', async () => {
    const victim = await person('refresh');
    const oldToken = victim.home.sessionToken();
    const oldId = jsonOf(await victim.home.get('/sessions/whoami')).id;
    const flow = jsonOf(await victim.home.get('/self-service/login/browser?refresh=true'));
    const refreshed = await victim.home.post(`/self-service/login?flow=${flow.id}`, {
      method: 'password',
      identifier: victim.email,
      password: testPassword,
      csrf_token: victim.home.csrf(),
    });
    expect(refreshed.statusCode).toBe(200);
    expect(jsonOf(refreshed).session.id).not.toBe(oldId);
    counts.check(victim.home.sessionToken() !== oldToken, () => 'a refresh login kept the session token');
    expect((await browser().get('/sessions/whoami', { headers: { 'x-session-token': oldToken ?? '' } })).statusCode).toBe(401);
  });

  it('enrolling a second factor (aal1 to aal2) rotates the session, and the aal1 token stops working', async () => {
    const victim = await person('totp');
    const oldToken = victim.home.sessionToken();
    const oldId = jsonOf(await victim.home.get('/sessions/whoami')).id;
    const flow = jsonOf(await victim.home.get('/self-service/settings/browser'));
    const secret = flow.ui.nodes.find((node: any) => node.attributes.id === 'totp_secret_key').attributes.text.context.secret;
    const linked = await victim.home.post(`/self-service/settings?flow=${flow.id}`, {
      method: 'totp',
      totp_code: await generate({ secret }),
      csrf_token: victim.home.csrf(),
    });
    expect(linked.statusCode).toBe(200);
    const after = jsonOf(await victim.home.get('/sessions/whoami'));
    expect(after.authenticator_assurance_level).toBe('aal2');
    expect(after.id).not.toBe(oldId);
    counts.check(victim.home.sessionToken() !== oldToken, () => 'the aal2 upgrade kept the aal1 token');
    expect((await browser().get('/sessions/whoami', { headers: { 'x-session-token': oldToken ?? '' } })).statusCode).toBe(401);
  });

  it('recovery opens a new session and ends every other session of the identity; the password chosen then keeps the new one', async () => {
    const victim = await person('recovery-rotation');
    // Somebody else holds a session of the victim's (a stolen cookie, a shared computer).
    const stolen = browser();
    expect((await logIn(stolen, victim.email)).statusCode).toBe(200);
    const recovering = browser();
    const flow = jsonOf(await recovering.get('/self-service/recovery/browser'));
    await recovering.post(`/self-service/recovery?flow=${flow.id}`, { method: 'code', email: victim.email, csrf_token: recovering.csrf() });
    const recovered = await recovering.post(`/self-service/recovery?flow=${flow.id}`, {
      method: 'code',
      code: await latestCode(recovering, victim.email),
      csrf_token: recovering.csrf(),
    });
    expect(outcomeOf(recovered)).toBe('422 browser_location_change_required');
    const settingsId = new URL(jsonOf(recovered).redirect_browser_to).searchParams.get('flow');
    for (const other of [victim.home, stolen]) expect((await other.get('/sessions/whoami')).statusCode).toBe(401);
    const changed = await recovering.post(`/self-service/settings?flow=${settingsId}`, {
      method: 'password',
      password: 'a brand new passphrase for 2026',
      csrf_token: recovering.csrf(),
    });
    expect(changed.statusCode).toBe(200);
    expect((await stolen.get('/sessions/whoami')).statusCode).toBe(401);
    expect((await victim.home.get('/sessions/whoami')).statusCode).toBe(401);
    expect((await recovering.get('/sessions/whoami')).statusCode).toBe(200);
  });
});

describe('CSRF from a foreign origin', () => {
  /** What a browser sends when a page on another site posts a form to identity. */
  const crossSite = {
    origin: evilOrigin,
    referer: `${evilOrigin}/win-a-prize`,
    'sec-fetch-site': 'cross-site',
    'sec-fetch-mode': 'navigate',
    accept: 'text/html,application/xhtml+xml',
  };
  const refused = (response: LightMyRequestResponse, what: string) => {
    counts.check(outcomeOf(response) === '403 security_csrf_violation', () => `${what}: answered ${outcomeOf(response)}`);
    counts.check(response.headers['access-control-allow-origin'] === undefined, () => `${what}: readable by ${evilOrigin}`);
    counts.check(!sessionCookieSet(response), () => `${what}: handed out a session`);
  };

  it("cannot change a signed-in victim's address or password, without a token or with the attacker's own", async () => {
    const victim = await person('csrf-settings');
    const attacker = browser();
    await attacker.get('/self-service/login/browser');
    const flowId = jsonOf(await victim.home.get('/self-service/settings/browser')).id;
    const forms: Record<string, string>[] = [
      { method: 'profile', 'traits.email': 'attacker@evil.example.net' },
      { method: 'password', password: 'the attacker chose this one' },
      { method: 'totp', totp_unlink: 'true' },
    ];
    for (const form of forms) {
      refused(await victim.home.send('POST', `/self-service/settings?flow=${flowId}`, { form, headers: crossSite }), `settings ${form.method} without a token`);
      const withForeignToken = { ...form, csrf_token: attacker.csrf() ?? '' };
      refused(
        await victim.home.send('POST', `/self-service/settings?flow=${flowId}`, { form: withForeignToken, headers: crossSite }),
        `settings ${form.method} with the attacker's token`,
      );
    }
    expect(jsonOf(await victim.home.get('/sessions/whoami')).identity.traits.email).toBe(victim.email);
    expect((await logIn(browser(), victim.email)).statusCode).toBe(200);
  });

  it("cannot sign a visitor into the attacker's account (login CSRF)", async () => {
    const attackerAccount = await person('csrf-login-attacker');
    const attacker = browser();
    const flowId = jsonOf(await attacker.get('/self-service/login/browser')).id;
    const visitor = browser();
    await visitor.get('/self-service/registration/browser');
    const credentials = { method: 'password', identifier: attackerAccount.email, password: testPassword };
    refused(await visitor.send('POST', `/self-service/login?flow=${flowId}`, { form: credentials, headers: crossSite }), 'login without a token');
    refused(
      await visitor.send('POST', `/self-service/login?flow=${flowId}`, { form: { ...credentials, csrf_token: attacker.csrf() ?? '' }, headers: crossSite }),
      "login with the attacker's token",
    );
    expect((await visitor.get('/sessions/whoami')).statusCode).toBe(401);
  });

  it('cannot register, start a recovery or send a verification code in a visitor’s name', async () => {
    const visitor = browser();
    const victimEmail = newEmail('csrf-victim');
    const registrationId = jsonOf(await visitor.get('/self-service/registration/browser')).id;
    refused(
      await visitor.send('POST', `/self-service/registration?flow=${registrationId}`, {
        form: { method: 'password', 'traits.email': victimEmail, password: testPassword },
        headers: crossSite,
      }),
      'registration',
    );
    expect((await logIn(browser(), victimEmail)).statusCode).toBe(400);

    const known = await person('csrf-recovery');
    const mailsBefore = jsonOf(await visitor.get(`/dev/outbox?to=${encodeURIComponent(known.email)}`)).messages.length;
    const recoveryId = jsonOf(await visitor.get('/self-service/recovery/browser')).id;
    refused(
      await visitor.send('POST', `/self-service/recovery?flow=${recoveryId}`, { form: { method: 'code', email: known.email }, headers: crossSite }),
      'recovery',
    );
    const verificationId = jsonOf(await visitor.get('/self-service/verification/browser')).id;
    refused(
      await visitor.send('POST', `/self-service/verification?flow=${verificationId}`, { form: { method: 'code', email: known.email }, headers: crossSite }),
      'verification',
    );
    expect(jsonOf(await visitor.get(`/dev/outbox?to=${encodeURIComponent(known.email)}`)).messages).toHaveLength(mailsBefore);
  });

  it('cannot log the victim out, nor read or revoke sessions from script', async () => {
    const victim = await person('csrf-logout');
    expect((await victim.home.get('/self-service/logout', { headers: crossSite })).statusCode).toBe(400);
    expect((await victim.home.get(`/self-service/logout?token=ory_lo_${'a'.repeat(32)}`, { headers: crossSite })).statusCode).toBe(403);
    expect((await victim.home.get('/sessions/whoami')).statusCode).toBe(200);
    for (const [method, url] of [
      ['DELETE', '/sessions'],
      ['GET', '/sessions/whoami'],
      ['GET', '/sessions'],
    ] as const) {
      const preflight = await victim.home.send('OPTIONS', url, { headers: { origin: evilOrigin, 'access-control-request-method': method } });
      counts.check(preflight.headers['access-control-allow-origin'] === undefined, () => `a preflight for ${method} ${url} from ${evilOrigin} was allowed`);
      const read = await victim.home.send(method, url, { headers: { origin: evilOrigin } });
      counts.check(read.headers['access-control-allow-origin'] === undefined, () => `${method} ${url} is readable by ${evilOrigin}`);
    }
    // The console itself may: credentialed CORS for its origin only.
    const fromConsole = await victim.home.send('OPTIONS', '/sessions', { headers: { origin: consoleUrl, 'access-control-request-method': 'DELETE' } });
    expect(fromConsole.headers['access-control-allow-origin']).toBe(consoleUrl);
  });
});

describe('open redirect through return_to', () => {
  const foreign = [
    `${evilOrigin}/phish`,
    '//evil.example.net/phish',
    '///evil.example.net/phish',
    '/\\evil.example.net',
    '\\\\evil.example.net',
    'https:evil.example.net',
    'https:\\\\evil.example.net',
    ` ${evilOrigin}`,
    `${consoleUrl}@evil.example.net`,
    `${consoleUrl}:443@evil.example.net/`,
    `${consoleUrl}%2f@evil.example.net`,
    `${evilOrigin}\\@console.meterway.test`,
    `${evilOrigin}#@console.meterway.test`,
    `${evilOrigin}?@console.meterway.test`,
    'https://console.meterway.test.evil.example.net/',
    'https://cоnsole.meterway.test/', // a Cyrillic о
    'http://console.meterway.test/dashboard',
    'https://console.meterway.test:8443/dashboard',
    'javascript:alert(document.cookie)',
    'JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    `${consoleUrl}/x\r\nLocation: ${evilOrigin}`,
  ];
  const entryPoints = (signedIn: boolean) =>
    signedIn
      ? [
          '/self-service/settings/browser',
          '/self-service/logout/browser',
          `/self-service/logout?token=ory_lo_${'a'.repeat(32)}`,
          '/self-service/verification/browser',
        ]
      : ['/self-service/login/browser', '/self-service/registration/browser', '/self-service/recovery/browser', '/self-service/verification/browser'];

  it('refuses every foreign, scheme-relative, backslashed, userinfo and script target, to SPAs and to browsers alike', async () => {
    const visitor = browser();
    const member = await person('redirect');
    let refusals = 0;
    for (const [who, client] of [
      ['visitor', visitor],
      ['member', member.home],
    ] as const) {
      for (const path of entryPoints(who === 'member')) {
        for (const target of foreign) {
          for (const accept of ['application/json', 'text/html']) {
            const url = `${path}${path.includes('?') ? '&' : '?'}return_to=${encodeURIComponent(target)}`;
            const answer = await client.get(url, { headers: { accept } });
            const ok = counts.check(
              outcomeOf(answer) === '400 self_service_flow_return_to_forbidden',
              () => `${who} ${url} (${accept}): answered ${outcomeOf(answer)} ${String(answer.headers.location ?? '')}`,
            );
            counts.check(answer.headers.location === undefined, () => `${who} ${url}: redirected to ${String(answer.headers.location)}`);
            if (ok) refusals++;
          }
        }
      }
    }
    expect(refusals).toBe(2 * 4 * foreign.length * 2);
  });

  it('still follows return_to on the console and on identity itself, up to the final redirect', async () => {
    const member = await person('redirect-allowed');
    const target = `${consoleUrl}/chat-completions?page=2`;
    const signedOut = browser();
    const created = await signedOut.get(`/self-service/login/browser?return_to=${encodeURIComponent(target)}`, { headers: { accept: 'text/html' } });
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toMatch(new RegExp(`^${consoleUrl}/login\\?flow=`));
    const flowId = new URL(String(created.headers.location)).searchParams.get('flow');
    const submitted = await signedOut.send('POST', `/self-service/login?flow=${flowId}`, {
      form: { method: 'password', identifier: member.email, password: testPassword, csrf_token: signedOut.csrf() ?? '' },
      headers: { accept: 'text/html' },
    });
    expect(submitted.statusCode).toBe(303);
    expect(submitted.headers.location).toBe(target);
    const own = `${identityUrl}/ui/settings`;
    expect((await member.home.get(`/self-service/settings/browser?return_to=${encodeURIComponent(own)}`)).statusCode).toBe(200);
    const again = await member.home.get(`/self-service/login/browser?return_to=${encodeURIComponent(target)}`, { headers: { accept: 'text/html' } });
    expect(again.headers.location).toBe(target);
  });
});

describe('cookie flags', () => {
  /** Every Set-Cookie header of a response, raw. */
  const setCookies = (response: LightMyRequestResponse) => [response.headers['set-cookie'] ?? []].flat().map(String);
  const attributes = (header: string) =>
    header
      .split(';')
      .slice(1)
      .map((part) => part.trim().toLowerCase());

  function checkHttpsCookie(header: string) {
    const name = header.split('=')[0] ?? '';
    const parts = attributes(header);
    for (const required of ['httponly', 'secure', 'samesite=lax', 'path=/'])
      counts.check(parts.includes(required), () => `${name} lacks ${required}: ${header}`);
    // Host-only unless COOKIE_DOMAIN asks otherwise: no sibling subdomain receives them.
    counts.check(!parts.some((part) => part.startsWith('domain=')), () => `${name} names a domain: ${header}`);
  }

  it('on https, the session and CSRF cookies are Secure, HttpOnly, SameSite=Lax, Path=/ and host-only, set and cleared alike', async () => {
    const visitor = browser();
    const flow = await visitor.get('/self-service/registration/browser');
    const email = newEmail('cookies');
    const registered = await visitor.post(`/self-service/registration?flow=${jsonOf(flow).id}`, {
      method: 'password',
      traits: { email },
      password: testPassword,
      csrf_token: visitor.csrf(),
    });
    const signIn = browser();
    const loginFlow = await signIn.get('/self-service/login/browser');
    const loggedIn = await signIn.post(`/self-service/login?flow=${jsonOf(loginFlow).id}`, {
      method: 'password',
      identifier: email,
      password: testPassword,
      csrf_token: signIn.csrf(),
    });
    const logoutToken = jsonOf(await signIn.get('/self-service/logout/browser')).logout_token;
    const loggedOut = await signIn.get(`/self-service/logout?token=${logoutToken}`);
    expect([registered.statusCode, loggedIn.statusCode, loggedOut.statusCode]).toEqual([200, 200, 204]);

    const all = [flow, registered, loginFlow, loggedIn, loggedOut].flatMap(setCookies);
    const session = (header: string) => header.startsWith(`${sessionCookieName}=`);
    const csrf = (header: string) => header.startsWith(`${csrfCookieName(identityUrl)}=`);
    expect(all.filter(session).length).toBeGreaterThanOrEqual(3);
    expect(all.filter(csrf).length).toBeGreaterThanOrEqual(3);
    for (const header of all) checkHttpsCookie(header);
    // The session cookie lives as long as the session (24 h); the CSRF cookie a year; logout clears the session's.
    const maxAge = (header: string) =>
      Number(
        attributes(header)
          .find((part) => part.startsWith('max-age='))
          ?.slice(8),
      );
    for (const header of setCookies(loggedIn).filter(session)) expect(maxAge(header)).toBeGreaterThan(86_000);
    for (const header of [...setCookies(flow), ...setCookies(loggedIn)].filter(csrf)) expect(maxAge(header)).toBe(31_536_000);
    const cleared = setCookies(loggedOut).filter(session);
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(/^ory_kratos_session=;/);
    // A cookie's value never shows in a body: the session token and the CSRF cookie stay HttpOnly in fact.
    for (const response of [registered, loggedIn]) {
      counts.check(
        !response.body.includes(signIn.sessionToken() ?? '§') && !response.body.includes(visitor.sessionToken() ?? '§'),
        () => 'a body carried a session token',
      );
      const masked = csrfNodeOf(jsonOf(response));
      counts.check(!masked || masked !== visitor.csrfCookie(), () => 'a body carried the raw CSRF cookie');
    }
    const rotated = signIn.csrfCookie();
    expect(rotated && tokensMatch(csrfNodeOf(jsonOf(loginFlow)) ?? '', rotated)).toBe(false);
  });

  describe('on plain http (local development)', () => {
    const dev = setupTestApp({ IDENTITY_URL: 'http://127.0.0.1:4455', CONSOLE_URL: 'http://127.0.0.1:3999' });

    it('leaves Secure off (a browser would drop it on http) but keeps HttpOnly and SameSite=Lax; COOKIE_SECURE overrides', async () => {
      const visitor = injectBrowser(() => dev.app, counts, { identityUrl: 'http://127.0.0.1:4455', ip: freshIp() });
      const flow = await visitor.get('/self-service/registration/browser');
      const registered = await visitor.post(`/self-service/registration?flow=${jsonOf(flow).id}`, {
        method: 'password',
        traits: { email: newEmail('http-cookies') },
        password: testPassword,
        csrf_token: visitor.csrf(),
      });
      expect(registered.statusCode).toBe(200);
      const headers = [flow, registered].flatMap(setCookies);
      expect(headers.length).toBeGreaterThanOrEqual(2);
      for (const header of headers) {
        const parts = attributes(header);
        expect(parts).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
        expect(parts).not.toContain('secure');
      }
      const config = (env: NodeJS.ProcessEnv) => loadIdentityConfig({ LOG_LEVEL: 'silent', ...env }).cookie.secure;
      expect(config({ IDENTITY_URL: 'http://127.0.0.1:4455', COOKIE_SECURE: 'true' })).toBe(true);
      expect(config({ IDENTITY_URL: identityUrl })).toBe(true);
    });
  });
});
