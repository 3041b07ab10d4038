import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '@meterway/service';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { app as identityPlugin } from './app.js';
import { loadIdentityConfig } from './env.js';
import { sessionCookieName } from './http/cookies.js';
import { routeTableOf } from './testing/fuzz.js';
import {
  csrfNodeOf,
  type InjectBrowser,
  injectBrowser,
  jsonOf,
  logIn,
  outcomeOf,
  revealsCsrf,
  signUp,
  suiteTally,
  testPassword,
} from './testing/inject-browser.js';
import { setupTestApp } from './testing/setup-test-app.js';

/**
 * Every identity route × every kind of caller: a stranger with no cookies, a signed-in person
 * whose address is unverified, user B, the api's system admin, and user A, who owns the flows,
 * the sessions and the logout token every row aims at. Identity knows no admins (SYSTEM_ADMIN_EMAILS
 * is the api's), so the admin must get exactly what any other identity gets. The table must name
 * every route identity registers: a new route without an expectation fails the first test.
 */
const identityUrl = 'http://127.0.0.1:4455';
const consoleUrl = 'http://127.0.0.1:3999';
const env = { IDENTITY_URL: identityUrl, CONSOLE_URL: consoleUrl, IDENTITY_RATE_LIMIT_MULTIPLIER: '100' };
const t = setupTestApp(env);
const counts = suiteTally('identity authorisation matrix');
const uiBuilt = existsSync(join(packagePath(import.meta.url, 'dist/ui'), 'index.html'));

type Role = 'anonymous' | 'unverified' | 'userB' | 'admin' | 'userA';
/** The owner comes last, so its destructive calls (revoke, log out) run after everyone else's attempts. */
const roles: Role[] = ['anonymous', 'unverified', 'userB', 'admin', 'userA'];
type Person = { email: string; identityId: string };

/** What each row aims at: user A's flows, sessions and logout token. */
const f = {} as {
  people: Record<Exclude<Role, 'anonymous'>, Person>;
  registrationA: string;
  verificationA: string;
  loginA: string;
  recoveryA: string;
  settingsA: string;
  sessionA: string;
  otherSessionA: string;
  logoutTokenA: string;
};
const browsers = {} as Record<Role, InjectBrowser>;
let otherBrowserOfA: InjectBrowser;

type Case = {
  url: () => string;
  body?: (caller: InjectBrowser, role: Role) => unknown;
  expect: Record<Role, string>;
  /** Runs before the row (say, to read a token that an earlier row rotated). */
  before?: () => Promise<void>;
};

const everyone = (outcome: string): Record<Role, string> => ({ anonymous: outcome, unverified: outcome, userB: outcome, admin: outcome, userA: outcome });
const signedIn = (stranger: string, others: string): Record<Role, string> => ({
  anonymous: stranger,
  unverified: others,
  userB: others,
  admin: others,
  userA: others,
});
const ownerOnly = (stranger: string, others: string, owner: string): Record<Role, string> => ({ ...signedIn(stranger, others), userA: owner });
const csrfViolation = '403 security_csrf_violation';
const alreadySignedIn = '400 session_already_available';

const matrix: Record<string, Case> = {
  'GET /healthz': { url: () => '/healthz', expect: everyone('200') },
  'GET /health/alive': { url: () => '/health/alive', expect: everyone('200') },
  'GET /health/ready': { url: () => '/health/ready', expect: everyone('200') },
  // Open outside production without METRICS_TOKEN (packages/service/src/metrics/metrics.test.ts tries the token).
  'GET /metrics': { url: () => '/metrics', expect: everyone('200') },
  // The dev outbox exists only without SMTP and outside production (app.test.ts); it is public by design there.
  'GET /dev/outbox': { url: () => '/dev/outbox', expect: everyone('200') },

  'GET /self-service/registration/browser': { url: () => '/self-service/registration/browser', expect: signedIn('200', alreadySignedIn) },
  'GET /self-service/registration/flows': {
    url: () => `/self-service/registration/flows?id=${f.registrationA}`,
    expect: ownerOnly(csrfViolation, csrfViolation, '200'),
  },
  // A's flow is complete: a stranger is told so (the flow, 400), anyone signed in that they already are.
  'POST /self-service/registration': {
    url: () => `/self-service/registration?flow=${f.registrationA}`,
    body: (caller) => ({ method: 'password', traits: { email: `matrix-${Date.now()}@example.com` }, password: testPassword, csrf_token: caller.csrf() }),
    expect: signedIn('400', alreadySignedIn),
  },

  'GET /self-service/verification/browser': { url: () => '/self-service/verification/browser', expect: everyone('200') },
  'GET /self-service/verification/flows': {
    url: () => `/self-service/verification/flows?id=${f.verificationA}`,
    expect: ownerOnly(csrfViolation, csrfViolation, '200'),
  },
  // A code submission needs no CSRF token (a code pasted on another device must work); A's flow is done, so it is replaced.
  'POST /self-service/verification': {
    url: () => `/self-service/verification?flow=${f.verificationA}`,
    body: () => ({ method: 'code', code: '123456' }),
    expect: everyone('410 self_service_flow_replaced'),
  },
  // The e-mailed link only fills the form in and sends the browser to the console's screen.
  'GET /self-service/verification': { url: () => `/self-service/verification?flow=${f.verificationA}&code=123456`, expect: everyone('303') },

  'GET /self-service/login/browser': { url: () => '/self-service/login/browser', expect: signedIn('200', alreadySignedIn) },
  'GET /self-service/login/flows': { url: () => `/self-service/login/flows?id=${f.loginA}`, expect: ownerOnly(csrfViolation, csrfViolation, '200') },
  // A's refresh flow, with A's own password: nobody else's session can be re-authenticated into A's identity.
  'POST /self-service/login': {
    url: () => `/self-service/login?flow=${f.loginA}`,
    body: (caller) => ({ method: 'password', identifier: f.people.userA.email, password: testPassword, csrf_token: caller.csrf() }),
    expect: ownerOnly(csrfViolation, '400', '200'),
  },

  'GET /self-service/recovery/browser': { url: () => '/self-service/recovery/browser', expect: signedIn('200', alreadySignedIn) },
  'GET /self-service/recovery/flows': { url: () => `/self-service/recovery/flows?id=${f.recoveryA}`, expect: ownerOnly(csrfViolation, csrfViolation, '200') },
  'POST /self-service/recovery': {
    url: () => `/self-service/recovery?flow=${f.recoveryA}`,
    body: (caller, role) => ({ method: 'code', email: role === 'anonymous' ? f.people.userA.email : f.people[role].email, csrf_token: caller.csrf() }),
    expect: signedIn(csrfViolation, alreadySignedIn),
  },
  // A forged link token: a fresh flow says the link is invalid, and nobody gets a session.
  'GET /self-service/recovery': { url: () => `/self-service/recovery?flow=${f.recoveryA}&token=${'x'.repeat(32)}`, expect: everyone('303') },

  'GET /self-service/settings/browser': { url: () => '/self-service/settings/browser', expect: signedIn('401 session_inactive', '200') },
  'GET /self-service/settings/flows': {
    url: () => `/self-service/settings/flows?id=${f.settingsA}`,
    expect: ownerOnly('401', '403 security_identity_mismatch', '200'),
  },
  // Each caller sends a valid token for its own cookie: only the flow's identity may use the flow.
  'POST /self-service/settings': {
    url: () => `/self-service/settings?flow=${f.settingsA}`,
    body: (caller) => ({ method: 'profile', traits: { email: f.people.userA.email }, csrf_token: caller.csrf() }),
    expect: ownerOnly('401', '403 security_identity_mismatch', '200'),
  },

  'GET /sessions/whoami': { url: () => '/sessions/whoami', expect: signedIn('401', '200') },
  'POST /sessions/whoami': { url: () => '/sessions/whoami', expect: signedIn('401', '200') },
  'PUT /sessions/whoami': { url: () => '/sessions/whoami', expect: signedIn('401', '200') },
  'PATCH /sessions/whoami': { url: () => '/sessions/whoami', expect: signedIn('401', '200') },
  'DELETE /sessions/whoami': { url: () => '/sessions/whoami', expect: signedIn('401', '200') },
  'GET /sessions': { url: () => '/sessions', expect: signedIn('401', '200') },
  // A's other session: to anyone else it is as unknown as a made-up id.
  'DELETE /sessions/:id': { url: () => `/sessions/${f.otherSessionA}`, expect: ownerOnly('401', '404', '204') },
  'DELETE /sessions': { url: () => '/sessions', expect: signedIn('401', '200') },

  'GET /ui/config.json': { url: () => '/ui/config.json', expect: everyone('200') },
  'GET /ui/assets/*': { url: () => '/ui/assets/not-there.js', expect: everyone('404') },
  // The hosted pages are public shells (503 while `npm run build` has not built them); they ask for flows themselves.
  'GET /ui': { url: () => '/ui', expect: everyone(uiBuilt ? '200' : '503') },
  'GET /ui/*': { url: () => `/ui/settings?flow=${f.settingsA}`, expect: everyone(uiBuilt ? '200' : '503') },

  'GET /self-service/logout/browser': { url: () => '/self-service/logout/browser', expect: signedIn('401 session_inactive', '200') },
  // Last: A's own call ends A's session.
  'GET /self-service/logout': {
    before: async () => {
      f.logoutTokenA = jsonOf(await browsers.userA.get('/self-service/logout/browser')).logout_token;
    },
    url: () => `/self-service/logout?token=${f.logoutTokenA}`,
    expect: ownerOnly('401 session_inactive', '403', '204'),
  },
};

beforeAll(async () => {
  const browser = (role: Role, ip: string) => injectBrowser(() => t.app, counts, { identityUrl, ip, stranger: role === 'anonymous' });
  roles.forEach((role, index) => (browsers[role] = browser(role, `198.51.100.${index + 1}`)));
  const stamp = Date.now().toString(36);
  const email = (who: string) => `matrix-${who}-${stamp}@example.com`;

  // A's browser opens a recovery flow before signing up, so the flow is bound to the CSRF cookie A keeps.
  f.recoveryA = jsonOf(await browsers.userA.get('/self-service/recovery/browser')).id;
  const a = await signUp(browsers.userA, email('a'), { verify: true });
  f.registrationA = a.registrationFlowId;
  f.verificationA = a.verificationFlowId;
  f.loginA = jsonOf(await browsers.userA.get('/self-service/login/browser?refresh=true')).id;
  f.settingsA = jsonOf(await browsers.userA.get('/self-service/settings/browser')).id;
  f.sessionA = jsonOf(await browsers.userA.get('/sessions/whoami')).id;
  otherBrowserOfA = browser('userA', '198.51.100.9');
  expect((await logIn(otherBrowserOfA, a.email)).statusCode).toBe(200);
  f.otherSessionA = jsonOf(await otherBrowserOfA.get('/sessions/whoami')).id;
  f.logoutTokenA = jsonOf(await browsers.userA.get('/self-service/logout/browser')).logout_token;

  f.people = {
    userA: a,
    unverified: await signUp(browsers.unverified, email('unverified')),
    userB: await signUp(browsers.userB, email('b'), { verify: true }),
    admin: await signUp(browsers.admin, email('admin'), { verify: true }),
  };
}, 60_000);

afterAll(() => {
  // The suite's closing line (each test fails on its own violations).
  // eslint-disable-next-line no-console
  console.log(counts.summary());
});
// Each test answers for the violations it found.
let violationsBefore = 0;
beforeEach(() => {
  violationsBefore = counts.tally.violations.length;
});
afterEach(() => {
  expect(counts.tally.violations.slice(violationsBefore)).toEqual([]);
});

/** What no answer to anyone but A may carry: A's address, session ids, logout token, or A's CSRF token. */
function leaksOfA(response: LightMyRequestResponse, sent: unknown): string[] {
  const found: string[] = [];
  const body = response.body;
  for (const [what, secret] of [
    ['the session id', f.sessionA],
    ['the other session id', f.otherSessionA],
    ['the logout token', f.logoutTokenA],
  ] as const) {
    if (secret && body.includes(secret)) found.push(`A's ${what}`);
  }
  // A caller that typed A's address itself may see it again.
  if (body.includes(f.people.userA.email) && !JSON.stringify(sent ?? null).includes(f.people.userA.email)) found.push("A's address");
  if (revealsCsrf(csrfNodeOf(jsonOf(response)), browsers.userA.csrfCookie())) found.push("A's CSRF token");
  return found;
}

/** Invariants every cell must keep, whatever its status. */
function checkCell(route: string, role: Role, response: LightMyRequestResponse, sent: unknown) {
  const where = () => `${route} as ${role}`;
  // The one 5xx by design: the hosted pages before `npm run build` (test:unit runs before any build).
  const unbuiltPage = !uiBuilt && route.startsWith('GET /ui') && response.statusCode === 503;
  counts.check(response.statusCode < 500 || unbuiltPage, () => `${where()}: answered ${response.statusCode}`);
  const error = jsonOf(response)?.error;
  if (response.statusCode >= 400 && error?.id) {
    counts.check(response.headers['ory-error-id'] === error.id, () => `${where()}: Ory-Error-Id ${String(response.headers['ory-error-id'])} for ${error.id}`);
  }
  const location = response.headers.location;
  if (typeof location === 'string') {
    counts.check([identityUrl, consoleUrl].includes(new URL(location, identityUrl).origin), () => `${where()}: redirected to ${location}`);
  }
  const sessionSet = (response.cookies as { name: string; value: string }[]).some((cookie) => cookie.name === sessionCookieName && cookie.value);
  counts.check(!sessionSet || (role === 'userA' && route === 'POST /self-service/login'), () => `${where()}: handed out a session`);
  // /dev/outbox shows every mail by design (development only).
  if (role !== 'userA' && route !== 'GET /dev/outbox') {
    const leaks = leaksOfA(response, sent);
    counts.check(leaks.length === 0, () => `${where()}: answered with ${leaks.join(', ')}`);
  }
}

describe('IDOR attempts on user A', () => {
  it("user B cannot revoke A's sessions, current or other, and learns nothing about them", async () => {
    const unknown = await browsers.userB.send('DELETE', '/sessions/00000000-0000-4000-8000-000000000000');
    for (const id of [f.sessionA, f.otherSessionA]) {
      const attempt = await browsers.userB.send('DELETE', `/sessions/${id}`);
      expect(attempt.statusCode).toBe(404);
      // The same answer as for an id that exists nowhere: no oracle for A's session ids.
      expect(jsonOf(attempt).error.reason).toBe(jsonOf(unknown).error.reason);
    }
    expect((await browsers.userB.send('DELETE', '/sessions')).statusCode).toBe(200);
    expect(jsonOf(await browsers.userA.get('/sessions/whoami')).id).toBe(f.sessionA);
    expect(jsonOf(await otherBrowserOfA.get('/sessions/whoami')).id).toBe(f.otherSessionA);
    const listedToB = jsonOf(await browsers.userB.get('/sessions')) as { id: string; identity: { id: string } }[];
    expect(listedToB.every((session) => session.identity.id === f.people.userB.identityId)).toBe(true);
    expect((jsonOf(await browsers.userA.get('/sessions')) as { id: string }[]).map((session) => session.id)).toContain(f.otherSessionA);
  });

  it("user B cannot change A's password or address through A's settings flow, even with a valid token of B's own", async () => {
    for (const body of [
      { method: 'password', password: 'b took over this account 123' },
      { method: 'profile', traits: { email: `b-owns-this-${Date.now()}@example.com` } },
      { method: 'totp', totp_unlink: true },
    ]) {
      const attempt = await browsers.userB.post(`/self-service/settings?flow=${f.settingsA}`, { ...body, csrf_token: browsers.userB.csrf() });
      expect(outcomeOf(attempt)).toBe('403 security_identity_mismatch');
    }
    expect(jsonOf(await browsers.userA.get('/sessions/whoami')).identity.traits.email).toBe(f.people.userA.email);
    expect(
      (
        await logIn(
          injectBrowser(() => t.app, counts, { identityUrl, ip: '198.51.100.20' }),
          f.people.userA.email,
        )
      ).statusCode,
    ).toBe(200);
  });

  it("A's logout token is useless in anyone else's browser", async () => {
    for (const role of ['unverified', 'userB', 'admin'] as const) {
      expect((await browsers[role].get(`/self-service/logout?token=${f.logoutTokenA}`)).statusCode).toBe(403);
      expect((await browsers[role].get('/sessions/whoami')).statusCode).toBe(200);
    }
    expect((await browsers.anonymous.get(`/self-service/logout?token=${f.logoutTokenA}`)).statusCode).toBe(401);
    expect(jsonOf(await browsers.userA.get('/sessions/whoami')).id).toBe(f.sessionA);
  });

  it("a flow id alone never yields its owner's CSRF token, whatever is submitted to it", async () => {
    const targets = [
      ['registration', f.registrationA, { method: 'password' }],
      ['login', f.loginA, { method: 'password' }],
      ['login', f.loginA, {}],
      ['verification', f.verificationA, { method: 'code', code: '000000' }],
      ['recovery', f.recoveryA, { method: 'code' }],
    ] as const;
    // A signed-out visitor holding a CSRF cookie of its own passes the CSRF check on any flow.
    const visitor = injectBrowser(() => t.app, counts, { identityUrl, ip: '198.51.100.21' });
    await visitor.get('/self-service/login/browser');
    const attackers = { stranger: browsers.anonymous, visitor, userB: browsers.userB };
    for (const [who, attacker] of Object.entries(attackers)) {
      for (const [kind, id, body] of targets) {
        const answer = await attacker.post(`/self-service/${kind}?flow=${id}`, { ...body, csrf_token: attacker.csrf() });
        counts.check(
          !revealsCsrf(csrfNodeOf(jsonOf(answer)), browsers.userA.csrfCookie()),
          () => `${who} read A's CSRF token from POST ${kind} (${answer.statusCode})`,
        );
        const read = await attacker.get(`/self-service/${kind}/flows?id=${id}`);
        expect(outcomeOf(read)).toBe(csrfViolation);
      }
    }
  });

  it('a flow id alone never yields the address its owner typed into it, after a mistake or after success', async () => {
    const owner = injectBrowser(() => t.app, counts, { identityUrl, ip: '198.51.100.22' });
    const email = `matrix-typed-${Date.now().toString(36)}@example.com`;
    const registration = jsonOf(await owner.get('/self-service/registration/browser')).id;
    const registrationUrl = `/self-service/registration?flow=${registration}`;
    // A weak password first: the flow comes back holding the address, as the owner's form should.
    expect((await owner.post(registrationUrl, { method: 'password', traits: { email }, password: 'short', csrf_token: owner.csrf() })).statusCode).toBe(400);
    expect((await owner.post(registrationUrl, { method: 'password', traits: { email }, password: testPassword, csrf_token: owner.csrf() })).statusCode).toBe(
      200,
    );
    const relogin = jsonOf(await owner.get('/self-service/login/browser?refresh=true')).id;
    const loginUrl = `/self-service/login?flow=${relogin}`;
    expect((await owner.post(loginUrl, { method: 'password', identifier: email, password: 'not the password', csrf_token: owner.csrf() })).statusCode).toBe(
      400,
    );
    const stranger = browsers.anonymous;
    for (const url of [registrationUrl, loginUrl]) {
      for (const body of [{}, { method: 'password' }, { method: 'totp' }]) {
        const answer = await stranger.post(url, body);
        counts.check(
          !answer.body.includes(email),
          () => `POST ${url.split('?')[0]} ${JSON.stringify(body)} by a stranger showed the owner's address (${answer.statusCode})`,
        );
      }
    }
    expect((await owner.post(loginUrl, { method: 'password', identifier: email, password: testPassword, csrf_token: owner.csrf() })).statusCode).toBe(200);
    for (const body of [{}, { method: 'password' }]) {
      const answer = await stranger.post(loginUrl, body);
      counts.check(
        !answer.body.includes(email),
        () => `POST login ${JSON.stringify(body)} on a completed flow showed the owner's address (${answer.statusCode})`,
      );
    }
  });
});

describe('identity authorisation matrix', () => {
  it('covers every route identity registers', async () => {
    const config = loadIdentityConfig({ LOG_LEVEL: 'silent', ...env });
    const registered = await routeTableOf(identityPlugin, { config, db: t.testDb.handle });
    expect(registered.sort()).toEqual(Object.keys(matrix).sort());
  });

  for (const [route, testCase] of Object.entries(matrix)) {
    it(`${route}: ${roles.map((role) => `${role} ${testCase.expect[role]}`).join(', ')}`, async () => {
      await testCase.before?.();
      const method = route.split(' ')[0] as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      const outcomes = {} as Record<Role, string>;
      for (const role of roles) {
        const caller = browsers[role];
        const body = testCase.body?.(caller, role);
        const response = await caller.send(method, testCase.url(), body === undefined ? {} : { json: body });
        outcomes[role] = outcomeOf(response);
        checkCell(route, role, response, body);
        // A's other session outlives every attempt on it but A's own.
        if (route === 'DELETE /sessions/:id' && role !== 'userA') {
          counts.check((await otherBrowserOfA.get('/sessions/whoami')).statusCode === 200, () => `${route} as ${role} revoked A's other session`);
        }
      }
      expect(outcomes).toEqual(testCase.expect);
    });
  }

  it("ends with A's other session revoked by A alone, and A signed out by A alone", async () => {
    expect((await otherBrowserOfA.get('/sessions/whoami')).statusCode).toBe(401);
    expect((await browsers.userA.get('/sessions/whoami')).statusCode).toBe(401);
    for (const role of ['unverified', 'userB', 'admin'] as const) expect((await browsers[role].get('/sessions/whoami')).statusCode).toBe(200);
  });
});
