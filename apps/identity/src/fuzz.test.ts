import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setupTestDb } from '@meterway/db/testing';
import { packagePath } from '@meterway/service';
import {
  createTally,
  type EncodedBody,
  encodings,
  headerValue,
  jsonOf,
  mutationsOf,
  nastyString,
  percentEncode,
  queryString,
  runsFactor as runs,
  tableDigests,
} from '@meterway/service/testing';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { app as identityPlugin, createApp } from './app.js';
import { migrations, schema } from './db/index.js';
import { normalizeEmail } from './domain/identities.js';
import { type IdentityConfig, loadIdentityConfig } from './env.js';
import { csrfCookieName, maskToken, tokensMatch } from './flows/csrf.js';
import { submittedBody } from './http/body.js';
import { answerProblems, cookieHeader, htmlForm, jarFrom, routeTableOf } from './testing/fuzz.js';

/**
 * Every identity route, sent thousands of malformed requests by strangers, by browsers holding a
 * CSRF cookie, with forged, revoked and real sessions: no 5xx, failures in Kratos' envelope or as
 * the flow saying what is wrong, redirects only to the allow-listed origins, no session handed
 * out, no mail sent, and not one identity, credential, address, session or code changed. Flow
 * rows are created and updated by design (that is what the flow endpoints do), so they are not
 * guarded. Client addresses vary so the per-address limits do not hide the validation behind 429s.
 */
const testDb = setupTestDb({ schema, migrations });
const identityUrl = 'http://127.0.0.1:4455';
const consoleUrl = 'http://127.0.0.1:3999';
const bodyLimit = 64 * 1024;
const password = 'a long and unusual passphrase 42';
const guardedTables = ['identities', 'credentials', 'verifiable_addresses', 'recovery_addresses', 'sessions', 'flow_codes', 'secrets'];
/** The hosted pages answer 503 by design when `npm run build` has not built them; nothing else may. */
const uiBuilt = existsSync(join(packagePath(import.meta.url, 'dist/ui'), 'index.html'));

const { tally, statuses, send, check, fuzzRoute, summary } = createTally();

let app: FastifyInstance;
let config: IdentityConfig;
let routes: string[] = [];

type Client = 'anonymous' | 'browser' | 'forged' | 'revoked' | 'user' | 'other';
const f = {} as {
  jars: Record<Client, Map<string, string>>;
  emails: { user: string; other: string };
  flows: Record<'login' | 'registration' | 'verification' | 'recovery' | 'settings' | 'userVerification', { id: string; nodes: any[] }>;
  logoutToken: string;
  otherSessionId: string;
  digests: Record<string, string>;
  outbox: number;
};

const get = (url: string, jar?: Map<string, string>) =>
  app.inject({ method: 'GET', url, headers: { accept: 'application/json', ...(jar ? { cookie: cookieHeader(jar) } : {}) } });

async function signUp(email: string) {
  const flow = await get('/self-service/registration/browser');
  const csrf = flow.json().ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value;
  const registered = await app.inject({
    method: 'POST',
    url: `/self-service/registration?flow=${flow.json().id}`,
    headers: { cookie: cookieHeader(jarFrom(flow)), accept: 'application/json' },
    payload: { method: 'password', traits: { email }, password, csrf_token: csrf },
  });
  if (registered.statusCode !== 200) throw new Error(`sign-up failed: ${registered.body}`);
  return { jar: jarFrom(flow, registered), verificationId: registered.json().continue_with[1].flow.id as string };
}

const outboxSize = async () => (await get('/dev/outbox')).json().messages.length as number;

beforeAll(async () => {
  config = loadIdentityConfig({ LOG_LEVEL: 'silent', IDENTITY_URL: identityUrl, CONSOLE_URL: consoleUrl });
  // The clock stands still for the whole run: a session's use is written down once per minute of
  // the clock, which would change the guarded sessions table whenever a slow machine takes longer.
  const startedAt = new Date();
  app = await createApp({ config, db: testDb.handle, clock: { now: () => startedAt } });
  routes = await routeTableOf(identityPlugin, { config, db: testDb.handle });

  const stamp = Date.now().toString(36);
  f.emails = { user: `fuzz-user-${stamp}@example.com`, other: `fuzz-other-${stamp}@example.com` };
  const user = await signUp(f.emails.user);
  const other = await signUp(f.emails.other);
  const leaving = await signUp(`fuzz-leaving-${stamp}@example.com`);
  const logout = (await get('/self-service/logout/browser', leaving.jar)).json();
  await app.inject({
    method: 'GET',
    url: `/self-service/logout?token=${logout.logout_token}`,
    headers: { cookie: cookieHeader(leaving.jar), accept: 'application/json' },
  });

  // A browser that holds only a CSRF cookie, with a flow of each kind.
  const first = await get('/self-service/login/browser');
  const browser = jarFrom(first);
  const flowOf = async (kind: string, jar: Map<string, string>) => {
    const response = kind === 'login' ? first : await get(`/self-service/${kind}/browser`, jar);
    return { id: response.json().id as string, nodes: response.json().ui.nodes as any[] };
  };
  f.flows = {
    login: await flowOf('login', browser),
    registration: await flowOf('registration', browser),
    verification: await flowOf('verification', browser),
    recovery: await flowOf('recovery', browser),
    settings: await flowOf('settings', user.jar),
    userVerification: { id: user.verificationId, nodes: (await get(`/self-service/verification/flows?id=${user.verificationId}`, user.jar)).json().ui.nodes },
  };
  f.logoutToken = (await get('/self-service/logout/browser', user.jar)).json().logout_token;
  f.otherSessionId = (await get('/sessions/whoami', other.jar)).json().id;
  f.jars = { anonymous: new Map(), browser, forged: new Map([...browser]), revoked: leaving.jar, user: user.jar, other: other.jar };
  f.digests = await tableDigests(testDb.db, 'identity', guardedTables);
  f.outbox = await outboxSize();
}, 60_000);

afterAll(async () => {
  await app?.close();
  // The suite's closing line (the tests fail on any violation).
  // eslint-disable-next-line no-console
  console.log(summary('identity'));
});

const ip = fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 1, max: 254 })).map(([a, b]) => `10.7.${a}.${b}`);
const clients = fc.constantFrom<Client>('anonymous', 'browser', 'browser', 'forged', 'revoked', 'user', 'user', 'other');
const forgedToken = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((token) => `ory_st_${token}`),
  headerValue,
  fc.constant('x'.repeat(300)),
);

/** The Cookie header and session headers a client sends: its jar, sometimes with forged or duplicated entries. */
function credentialsOf(client: Client): fc.Arbitrary<Record<string, string>> {
  const jar = cookieHeader(f.jars[client]);
  const cookie =
    client === 'anonymous'
      ? fc.oneof(
          fc.constant(undefined),
          headerValue.map((value) => value.replace(/ory_kratos_session|csrf_token/gi, 'x')),
        )
      : client === 'forged'
        ? forgedToken.map((token) => `ory_kratos_session=${token}; ${jar}`)
        : fc.oneof(
            { weight: 6, arbitrary: fc.constant(jar) },
            { weight: 1, arbitrary: forgedToken.map((token) => `ory_kratos_session=${token}; ${jar}`) },
            { weight: 1, arbitrary: headerValue.map((junk) => `${jar}; ${junk}`) },
          );
  const sessionHeader = fc.oneof(
    { weight: 4, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: forgedToken.map((token) => ({ 'x-session-token': token })) },
    { weight: 1, arbitrary: forgedToken.map((token) => ({ authorization: `Bearer ${token}` })) },
  );
  return fc.tuple(cookie, sessionHeader).map(([value, extra]) => ({ ...extra, ...(value ? { cookie: value } : {}) }));
}

const extraHeaders = fc.record(
  {
    accept: fc.oneof(headerValue, fc.constantFrom('application/json', 'text/html', '*/*', 'application/json;q=0.1, text/html;q=0.2')),
    origin: fc.oneof(headerValue, fc.constantFrom(consoleUrl, 'https://evil.example', 'null')),
    'sec-fetch-mode': fc.constantFrom('cors', 'navigate', 'same-origin'),
    'user-agent': headerValue,
    'x-request-id': headerValue,
    'x-csrf-token': headerValue,
  },
  { requiredKeys: [] },
);

type Case = InjectOptions & { client: Client; oversized?: boolean };

function request(method: InjectOptions['method'], url: fc.Arbitrary<string>, body?: fc.Arbitrary<EncodedBody>, who = clients) {
  return fc
    .record({ url, client: who, extra: extraHeaders, remoteAddress: ip, body: body ?? fc.constant<EncodedBody>({}) })
    .chain(({ client, ...rest }) => credentialsOf(client).map((credentials) => ({ client, credentials, ...rest })))
    .map(({ url: path, client, credentials, extra, remoteAddress, body: encoded }): Case => {
      const headers: Record<string, string> = { ...extra, ...credentials };
      if (encoded.contentType) headers['content-type'] = encoded.contentType;
      return {
        method,
        url: path,
        headers,
        remoteAddress,
        client,
        ...(encoded.payload !== undefined ? { payload: encoded.payload } : {}),
        ...(encoded.oversized ? { oversized: true } : {}),
      };
    });
}

const allFlowIds = () => Object.values(f.flows).map((flow) => flow.id);
const flowId = (...own: string[]) => {
  const ids = [...own, ...allFlowIds()];
  return fc.oneof(
    fc.constantFrom(...ids),
    fc.constantFrom(...ids).map((id) => id.toUpperCase()),
    fc.uuid(),
    nastyString,
  );
};
const returnTo = fc.oneof(
  fc.constantFrom(
    `${consoleUrl}/dashboard`,
    `${identityUrl}/ui/settings`,
    'https://evil.example/',
    '//evil.example',
    'javascript:alert(1)',
    `${consoleUrl}@evil.example`,
    `${consoleUrl}.evil.example`,
  ),
  fc.constantFrom('\r\nSet-Cookie: injected=1', '\u0000', '\t', '%0d%0a', '\u2028').map((junk) => `${consoleUrl}/dashboard${junk}`),
  nastyString,
);
const queryPair = (...own: string[]) =>
  fc.oneof(
    fc.tuple(fc.constantFrom('flow', 'id'), flowId(...own)),
    fc.tuple(fc.constant('return_to'), returnTo),
    fc.tuple(fc.constantFrom('aal', 'refresh'), fc.oneof(fc.constantFrom('aal1', 'aal2', 'aal3', 'true', 'false'), nastyString)),
    fc.tuple(fc.constantFrom('token', 'code'), fc.oneof(fc.stringMatching(/^\d{6}$/), fc.constant(f.logoutToken), nastyString)),
    fc.tuple(nastyString, nastyString),
  );
/** Query parameters the self-service routes read, set to anything, sometimes twice. */
const flowQuery = (...own: string[]) => fc.array(queryPair(...own), { maxLength: 4 }).map(queryString);
/** A query that mostly names the real flow first (`flow=` to submit, `id=` to fetch), so the request gets past it. */
const flowFirst = (param: 'flow' | 'id', ...own: string[]) =>
  fc
    .tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: flowId(...own) }), fc.array(queryPair(...own), { maxLength: 3 }))
    .map(([flow, pairs]) => queryString([[param, flow], ...pairs]));

const nodeValue = (node: any, csrf: fc.Arbitrary<string>): fc.Arbitrary<unknown> => {
  const { name, type, value } = node.attributes;
  if (name === 'csrf_token') return csrf;
  if (type === 'email' || name === 'identifier' || name === 'email')
    return fc.oneof(fc.emailAddress(), fc.constantFrom(f.emails.user, f.emails.other, f.emails.user.toUpperCase()));
  if (type === 'password') return fc.oneof(fc.string({ minLength: 8, maxLength: 64 }), fc.constant(`${password}!`));
  if (name.endsWith('code')) return fc.stringMatching(/^\d{6}$/);
  return fc.constant(value);
};

/**
 * A valid-looking submission built from the flow's own ui nodes (its schema, in Kratos terms):
 * one value per input, the submit buttons' methods, and a CSRF token that may be real, re-masked,
 * another browser's or made up.
 */
function fromNodes(nodes: any[]): fc.Arbitrary<Record<string, unknown>> {
  const csrfValue = nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value ?? '';
  const realCookies = [f.jars.browser, f.jars.user].map((jar) => jar.get(csrfCookieName(identityUrl)) ?? '');
  // Mostly a token that passes, so the requests get past the CSRF check to the code behind it.
  const csrf = fc.oneof(
    { weight: 3, arbitrary: fc.constant(csrfValue) },
    { weight: 1, arbitrary: fc.constantFrom(...realCookies).map((real) => maskToken(real)) },
    { weight: 1, arbitrary: fc.base64String({ minLength: 44, maxLength: 88 }) },
    { weight: 1, arbitrary: nastyString },
  );
  const fields = new Map<string, fc.Arbitrary<unknown>[]>();
  for (const node of nodes.filter((candidate) => candidate.type === 'input')) {
    fields.set(node.attributes.name, [...(fields.get(node.attributes.name) ?? []), nodeValue(node, csrf)]);
  }
  const record = Object.fromEntries([...fields].map(([name, options]) => [name, fc.oneof(...options)]));
  return fc.record(record).map((flat) => submittedBody(flat));
}

const knownEmails = () => new Set([f.emails.user, f.emails.other]);
/** The submission as the server reads it, whether it arrives as JSON or as a form. */
function readings(c: Case): Record<string, unknown>[] {
  const payload = c.payload === undefined ? undefined : String(c.payload);
  const json = jsonOf(payload);
  return [...(json.ok ? [submittedBody(json.value)] : []), submittedBody(Object.fromEntries(new URLSearchParams(payload ?? '')))];
}
const csrfOk = (c: Case, body: Record<string, unknown>) => {
  const real = f.jars[c.client].get(csrfCookieName(identityUrl));
  return typeof body.csrf_token === 'string' && real !== undefined && tokensMatch(body.csrf_token, real);
};
const email = (value: unknown) => (typeof value === 'string' ? normalizeEmail(value) : '');

/** Submissions that would rightly change something (an account, a session, a mail): never sent by the fuzzer. */
const wellFormed: Record<string, (c: Case, body: Record<string, any>) => boolean> = {
  registration: (c, body) => csrfOk(c, body) && body.method === 'password' && typeof body.traits?.email === 'string' && typeof body.password === 'string',
  login: (_c, body) => body.password === password,
  verification: (c, body) => csrfOk(c, body) && knownEmails().has(email(body.email)),
  recovery: (c, body) => csrfOk(c, body) && knownEmails().has(email(body.email)),
  settings: (c, body) => (c.client === 'user' || c.client === 'other') && csrfOk(c, body) && ['profile', 'password', 'totp'].includes(body.method),
};

/** Submissions come mostly from the browser that owns the flow, so they reach the code behind the CSRF check. */
const submitters = (kind: string) =>
  kind === 'settings'
    ? fc.constantFrom<Client>('user', 'user', 'user', 'browser', 'forged', 'other', 'anonymous')
    : fc.constantFrom<Client>('browser', 'browser', 'browser', 'anonymous', 'forged', 'revoked', 'user');

const submission = (kind: keyof typeof wellFormed, method: 'GET' | 'POST', ...flows: { id: string; nodes: any[] }[]) =>
  request(
    method,
    flowFirst('flow', ...flows.map((flow) => flow.id)),
    method === 'POST'
      ? fc
          .constantFrom(...flows)
          .chain((flow) => fc.oneof({ weight: 3, arbitrary: mutationsOf(fromNodes(flow.nodes)) }, { weight: 1, arbitrary: fromNodes(flow.nodes) }))
          .chain((body) => encodings(body, bodyLimit, [htmlForm]))
      : undefined,
    submitters(kind),
  )
    .map((c): Case => ({ ...c, url: `/self-service/${kind}${c.url}` }))
    .filter((c) => !readings(c).some((body) => wellFormed[kind]?.(c, body)));

const plain = (path: string) =>
  request(
    'GET',
    flowQuery().map((query) => `${path}${query}`),
  );
const withBody = (method: InjectOptions['method'], path: fc.Arbitrary<string>) =>
  request(
    method,
    path,
    fc.oneof(mutationsOf(fc.constant({})), fc.constant({})).chain((body) => encodings(body, bodyLimit, [htmlForm])),
  );

type Spec = { runs: number; cases: () => fc.Arbitrary<Case>; expect5xx?: (response: LightMyRequestResponse) => boolean };

const traversal = fc.oneof(
  fc.constantFrom(
    '../../package.json',
    '..%2f..%2fpackage.json',
    '%2e%2e/%2e%2e/src/app.ts',
    '....//....//etc/passwd',
    'index-DL.js%00.png',
    '..\\..\\package.json',
  ),
  nastyString.map(percentEncode),
);

/** One entry per route identity registers (a new route without one fails the first test). */
const specs: Record<string, Spec> = {
  'GET /healthz': { runs: 60, cases: () => plain('/healthz') },
  'GET /health/alive': { runs: 60, cases: () => plain('/health/alive') },
  'GET /health/ready': { runs: 60, cases: () => plain('/health/ready') },
  'GET /metrics': { runs: 60, cases: () => plain('/metrics') },
  'GET /dev/outbox': {
    runs: 100,
    cases: () =>
      request(
        'GET',
        fc.array(fc.tuple(fc.constant('to'), nastyString), { maxLength: 2 }).map((pairs) => `/dev/outbox${queryString(pairs)}`),
      ),
  },
  'GET /self-service/registration/browser': { runs: 150, cases: () => plain('/self-service/registration/browser') },
  'GET /self-service/registration/flows': {
    runs: 200,
    cases: () =>
      request(
        'GET',
        flowFirst('id', f.flows.registration.id).map((query) => `/self-service/registration/flows${query}`),
      ),
  },
  'POST /self-service/registration': { runs: 450, cases: () => submission('registration', 'POST', f.flows.registration) },
  'GET /self-service/verification/browser': { runs: 120, cases: () => plain('/self-service/verification/browser') },
  'GET /self-service/verification/flows': {
    runs: 200,
    cases: () =>
      request(
        'GET',
        flowFirst('id', f.flows.verification.id).map((query) => `/self-service/verification/flows${query}`),
      ),
  },
  'POST /self-service/verification': { runs: 400, cases: () => submission('verification', 'POST', f.flows.verification, f.flows.userVerification) },
  'GET /self-service/verification': { runs: 150, cases: () => submission('verification', 'GET', f.flows.verification, f.flows.userVerification) },
  'GET /self-service/login/browser': { runs: 150, cases: () => plain('/self-service/login/browser') },
  'GET /self-service/login/flows': {
    runs: 200,
    cases: () =>
      request(
        'GET',
        flowFirst('id', f.flows.login.id).map((query) => `/self-service/login/flows${query}`),
      ),
  },
  'POST /self-service/login': { runs: 450, cases: () => submission('login', 'POST', f.flows.login) },
  'GET /self-service/logout/browser': { runs: 120, cases: () => plain('/self-service/logout/browser') },
  'GET /self-service/logout': {
    runs: 250,
    // The real logout token of the signed-in person is sent by anyone but that person's browser.
    cases: () => plain('/self-service/logout').filter((c) => !(c.client === 'user' && String(c.url).includes(f.logoutToken))),
  },
  'GET /self-service/recovery/browser': { runs: 120, cases: () => plain('/self-service/recovery/browser') },
  'GET /self-service/recovery/flows': {
    runs: 200,
    cases: () =>
      request(
        'GET',
        flowFirst('id', f.flows.recovery.id).map((query) => `/self-service/recovery/flows${query}`),
      ),
  },
  'POST /self-service/recovery': { runs: 400, cases: () => submission('recovery', 'POST', f.flows.recovery) },
  'GET /self-service/recovery': { runs: 150, cases: () => submission('recovery', 'GET', f.flows.recovery) },
  'GET /self-service/settings/browser': { runs: 150, cases: () => plain('/self-service/settings/browser') },
  'GET /self-service/settings/flows': {
    runs: 200,
    cases: () =>
      request(
        'GET',
        flowFirst('id', f.flows.settings.id).map((query) => `/self-service/settings/flows${query}`),
      ),
  },
  'POST /self-service/settings': { runs: 450, cases: () => submission('settings', 'POST', f.flows.settings) },
  'GET /sessions/whoami': { runs: 200, cases: () => plain('/sessions/whoami') },
  'POST /sessions/whoami': {
    runs: 60,
    cases: () =>
      withBody(
        'POST',
        flowQuery().map((query) => `/sessions/whoami${query}`),
      ),
  },
  'PUT /sessions/whoami': {
    runs: 60,
    cases: () =>
      withBody(
        'PUT',
        flowQuery().map((query) => `/sessions/whoami${query}`),
      ),
  },
  'PATCH /sessions/whoami': {
    runs: 60,
    cases: () =>
      withBody(
        'PATCH',
        flowQuery().map((query) => `/sessions/whoami${query}`),
      ),
  },
  'DELETE /sessions/whoami': {
    runs: 60,
    cases: () =>
      withBody(
        'DELETE',
        flowQuery().map((query) => `/sessions/whoami${query}`),
      ),
  },
  'GET /sessions': { runs: 120, cases: () => plain('/sessions') },
  // The signed-in person has no other session, so revoking the others changes nothing.
  'DELETE /sessions': {
    runs: 120,
    cases: () =>
      withBody(
        'DELETE',
        flowQuery().map((query) => `/sessions${query}`),
      ),
  },
  'DELETE /sessions/:id': {
    runs: 250,
    cases: () =>
      withBody(
        'DELETE',
        fc.oneof(fc.constant(f.otherSessionId), fc.uuid(), nastyString.map(percentEncode)).map((id) => `/sessions/${id}`),
      ).filter((c) => !(c.client === 'other' && String(c.url).includes(f.otherSessionId))),
  },
  'GET /ui/config.json': { runs: 60, cases: () => plain('/ui/config.json') },
  'GET /ui/assets/*': {
    runs: 150,
    cases: () =>
      request(
        'GET',
        traversal.map((path) => `/ui/assets/${path}`),
      ),
  },
  'GET /ui': { runs: 60, cases: () => plain('/ui'), expect5xx: notBuilt },
  'GET /ui/*': {
    runs: 150,
    cases: () =>
      request(
        'GET',
        fc.oneof(fc.constantFrom('settings', 'login', 'recovery'), traversal).map((path) => `/ui/${path}`),
      ),
    expect5xx: notBuilt,
  },
};

function notBuilt(response: LightMyRequestResponse) {
  return !uiBuilt && response.statusCode === 503 && /not built/.test(response.body);
}

const fuzz = (route: string, spec: Spec) =>
  fuzzRoute({
    app,
    route,
    cases: spec.cases(),
    numRuns: spec.runs * runs,
    request: ({ client, oversized: _oversized, ...options }) => ({ options, who: client }),
    problems: (c, response) => {
      let problems = answerProblems(response, config.allowedReturnOrigins);
      if (spec.expect5xx?.(response)) problems = problems.filter((problem) => !problem.startsWith('answered 5'));
      // 414 or 400 when the router refuses the URL (an over-long parameter, a broken %-escape) before the body is read.
      const urlRefused = response.statusCode === 414 || (response.statusCode === 400 && response.body.includes('is not a valid url component'));
      if (c.oversized && response.statusCode !== 413 && !urlRefused) problems.push(`an oversized body answered ${response.statusCode}`);
      if (route.startsWith('GET /ui/assets') && response.statusCode === 200 && !/^\/ui\/assets\/[\w-]+\.(js|css)$/.test(String(c.url)))
        problems.push('served a file outside the assets');
      return problems;
    },
  });

describe('identity fuzzing', () => {
  it('has a fuzz spec for every route identity registers', async () => {
    expect([...new Set(routes)].sort()).toEqual(Object.keys(specs).sort());
    for (const route of routes) {
      const [method, url] = route.split(' ') as ['GET', string];
      expect(app.hasRoute({ method, url })).toBe(true);
    }
  });

  for (const [route, spec] of Object.entries(specs)) {
    it(`${route}: ${spec.runs * runs} malformed requests, no 5xx, clear 4xx, nothing changed`, async () => {
      const before = tally.violations.length;
      await fuzz(route, spec);
      const after = await tableDigests(testDb.db, 'identity', guardedTables);
      for (const table of guardedTables) check(after[table] === f.digests[table], () => `${route} changed identity.${table}`);
      const mails = await outboxSize();
      check(mails === f.outbox, () => `${route} sent ${mails - f.outbox} mails`);
      const found = tally.violations.slice(before);
      expect(found, found.slice(0, 2).concat(found.slice(-2)).join('\n')).toHaveLength(0);
    }, 120_000);
  }

  it('still knows the signed-in person afterwards, and the answers reached every layer', async () => {
    for (const route of Object.keys(specs).filter((name) => name.startsWith('POST') || name.startsWith('PUT') || name.startsWith('PATCH'))) {
      expect(statuses.get(route), `${route} never answered 413`).toContain(413);
    }
    for (const route of ['POST /self-service/registration', 'POST /self-service/login', 'POST /self-service/recovery', 'POST /self-service/settings']) {
      expect(statuses.get(route), `${route} never reached the CSRF check or validation`).toEqual(expect.arrayContaining([400, 403]));
    }
    const whoami = await send(app, { method: 'GET', url: '/sessions/whoami', headers: { cookie: cookieHeader(f.jars.user), accept: 'application/json' } });
    expect(
      check(
        whoami?.statusCode === 200 && whoami.json().identity.traits.email === f.emails.user,
        () => `whoami answered ${whoami?.statusCode} after the fuzzing`,
      ),
    ).toBe(true);
    expect(tally.requests).toBeGreaterThanOrEqual(Object.values(specs).reduce((sum, spec) => sum + spec.runs * runs, 0));
  });
});

/** What the fuzzing found, pinned as plain cases (each answered 500, or outside Kratos' envelope, before its fix). */
describe('identity regressions found by fuzzing', () => {
  const fresh = async (kind: 'registration' | 'login') => {
    const flow = await get(`/self-service/${kind}/browser`);
    const csrf = flow.json().ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value as string;
    return { id: flow.json().id as string, csrf, cookie: cookieHeader(jarFrom(flow)) };
  };
  const expectKratos = (response: LightMyRequestResponse, status: number, id?: string) => {
    expect(response.statusCode).toBe(status);
    expect(response.json().error).toMatchObject({ code: status, ...(id ? { id } : {}) });
  };

  it('refuses an e-mail address with a NUL character with a 400, and registers nobody', async () => {
    const flow = await fresh('registration');
    const before = await tableDigests(testDb.db, 'identity', ['identities']);
    const response = await app.inject({
      method: 'POST',
      url: `/self-service/registration?flow=${flow.id}`,
      headers: { cookie: flow.cookie, accept: 'application/json' },
      payload: { method: 'password', traits: { email: 'a\u0000b@example.com' }, password, csrf_token: flow.csrf },
    });
    expectKratos(response, 400);
    expect(response.json().error.reason).toMatch(/NUL/);
    expect(await tableDigests(testDb.db, 'identity', ['identities'])).toEqual(before);
  });

  it('refuses a login identifier with half a surrogate pair with a 400 (it cannot be stored in the flow)', async () => {
    const flow = await fresh('login');
    const response = await app.inject({
      method: 'POST',
      url: `/self-service/login?flow=${flow.id}`,
      headers: { cookie: flow.cookie, accept: 'application/json' },
      payload: { method: 'password', identifier: 'x\ud800@example.com', password: 'wrong password 1', csrf_token: flow.csrf },
    });
    expectKratos(response, 400);
  });

  it('refuses a return_to with a NUL or a CR/LF, even on an allowed origin', async () => {
    expectKratos(await get(`/self-service/login/browser?return_to=${encodeURIComponent(`${consoleUrl}/dashboard\u0000`)}`), 400);
    const signedIn = await app.inject({
      method: 'GET',
      url: `/self-service/registration/browser?return_to=${encodeURIComponent(`${consoleUrl}/dashboard\r\nSet-Cookie: injected=1`)}`,
      headers: { cookie: cookieHeader(f.jars.user), accept: 'text/html' },
    });
    expectKratos(signedIn, 400, 'self_service_flow_return_to_forbidden');
    expect(signedIn.headers['set-cookie']).toBeUndefined();
  });

  it('redirects a signed-in browser to a return_to with non-ASCII characters percent-encoded', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/self-service/login/browser?return_to=${encodeURIComponent(`${consoleUrl}/dashboard\u2028é`)}`,
      headers: { cookie: cookieHeader(f.jars.user), accept: 'text/html' },
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${consoleUrl}/dashboard%E2%80%A8%C3%A9`);
  });

  it('answers the dev outbox asked for two addresses at once', async () => {
    const response = await get('/dev/outbox?to=a@example.com&to=b@example.com');
    expect(response.statusCode).toBe(200);
    expect(response.json().messages.length).toBeGreaterThan(0);
  });

  it('answers a broken %-escape in the path and an over-long path parameter in the Kratos envelope', async () => {
    const broken = await app.inject({ method: 'DELETE', url: '/sessions/%ED%A0%80', headers: { accept: 'application/json' } });
    expectKratos(broken, 400);
    expect(broken.headers).not.toHaveProperty('ory-error-id');
    expectKratos(await app.inject({ method: 'DELETE', url: `/sessions/${'a'.repeat(200)}` }), 414);
  });
});
