import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { csrfCookieName, maskToken, tokensMatch } from '../flows/csrf.js';
import { sessionCookieName } from '../http/cookies.js';

/**
 * Browsers over `inject` for the authorisation matrix and the abuse suite: each keeps its cookies
 * as a browser would and comes from one client address (the per-IP limits key on it), and every
 * request is counted for the suite's closing line.
 */

export const testPassword = 'a long and unusual passphrase 42';

/** What a suite did: requests sent, invariant checks made, and each violation found. */
export function suiteTally(name: string) {
  const tally = { requests: 0, checks: 0, violations: [] as string[] };
  return {
    tally,
    check(ok: boolean, what: () => string): boolean {
      tally.checks++;
      if (!ok) tally.violations.push(what());
      return ok;
    },
    summary: () => `${name}: ${tally.requests} requests sent, ${tally.checks} invariant checks, ${tally.violations.length} violations`,
  };
}

export type SuiteTally = ReturnType<typeof suiteTally>;

type Send = { headers?: Record<string, string>; json?: unknown; form?: Record<string, string>; ip?: string };

/**
 * A browser. `stranger: true` keeps no cookies at all (every request arrives bare), as a script
 * with no prior contact would send it.
 */
export function injectBrowser(app: () => FastifyInstance, tally: SuiteTally, options: { identityUrl: string; ip?: string; stranger?: boolean }) {
  const jar = new Map<string, string>();
  const csrfName = csrfCookieName(options.identityUrl);

  const store = (response: LightMyRequestResponse) => {
    if (options.stranger) return;
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const gone = (cookie.maxAge !== undefined && cookie.maxAge <= 0) || (cookie.expires !== undefined && cookie.expires.getTime() < Date.now());
      if (gone) jar.delete(cookie.name);
      else jar.set(cookie.name, cookie.value);
    }
  };

  async function send(method: InjectOptions['method'], url: string, request: Send = {}): Promise<LightMyRequestResponse> {
    tally.tally.requests++;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await app().inject({
      method,
      url,
      remoteAddress: request.ip ?? options.ip ?? '127.0.0.1',
      headers: {
        accept: 'application/json',
        ...(cookie ? { cookie } : {}),
        ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...request.headers,
      },
      ...(request.json !== undefined ? { payload: request.json as object } : {}),
      ...(request.form ? { payload: new URLSearchParams(request.form).toString() } : {}),
    });
    store(response);
    return response;
  }

  return {
    jar,
    send,
    get: (url: string, request: Send = {}) => send('GET', url, request),
    post: (url: string, json: unknown, request: Send = {}) => send('POST', url, { ...request, json }),
    /** A freshly masked token for this browser's own CSRF cookie, as its own flows would carry it. */
    csrf: (): string | undefined => {
      const real = jar.get(csrfName);
      return real ? maskToken(real) : undefined;
    },
    csrfCookie: () => jar.get(csrfName),
    sessionToken: () => jar.get(sessionCookieName),
  };
}

export type InjectBrowser = ReturnType<typeof injectBrowser>;

type NodeLike = { attributes?: { name?: string; value?: unknown } };

/** The masked CSRF token a flow body carries, if any. */
export const csrfNodeOf = (body: unknown): string | undefined => {
  const nodes = (body as { ui?: { nodes?: NodeLike[] } } | undefined)?.ui?.nodes ?? [];
  const value = nodes.find((node) => node.attributes?.name === 'csrf_token')?.attributes?.value;
  return typeof value === 'string' ? value : undefined;
};

/** True when a masked token a response carries unmasks to this real (cookie) token. */
export const revealsCsrf = (masked: string | undefined, real: string | undefined) => Boolean(masked && real && tokensMatch(masked, real));

export const jsonOf = (response: LightMyRequestResponse): any => {
  try {
    return response.json();
  } catch {
    return undefined;
  }
};

/** `<status>` or `<status> <Kratos error id>`: what a matrix cell expects. */
export const outcomeOf = (response: LightMyRequestResponse): string => {
  const id = jsonOf(response)?.error?.id;
  return typeof id === 'string' && id ? `${response.statusCode} ${id}` : String(response.statusCode);
};

/** The newest code the dev outbox holds for an address. */
export async function latestCode(browser: InjectBrowser, email: string): Promise<string> {
  const outbox = await browser.get(`/dev/outbox?to=${encodeURIComponent(email)}`);
  const code = jsonOf(outbox)?.messages?.at(-1)?.code;
  if (typeof code !== 'string') throw new Error(`no code for ${email} in the dev outbox`);
  return code;
}

/** Registers through the JSON flow (which signs the browser in); optionally verifies the address with the mailed code. */
export async function signUp(browser: InjectBrowser, email: string, options: { verify?: boolean } = {}) {
  const flow = await browser.get('/self-service/registration/browser');
  const registered = await browser.post(`/self-service/registration?flow=${jsonOf(flow).id}`, {
    method: 'password',
    traits: { email },
    password: testPassword,
    csrf_token: browser.csrf(),
  });
  if (registered.statusCode !== 200) throw new Error(`sign-up failed: ${registered.body}`);
  const body = jsonOf(registered);
  const verificationFlowId = body.continue_with.find((item: { action: string }) => item.action === 'show_verification_ui').flow.id as string;
  if (options.verify) {
    const verified = await browser.post(`/self-service/verification?flow=${verificationFlowId}`, { method: 'code', code: await latestCode(browser, email) });
    if (jsonOf(verified)?.state !== 'passed_challenge') throw new Error(`verification failed: ${verified.body}`);
  }
  return { email, identityId: body.identity.id as string, registrationFlowId: jsonOf(flow).id as string, verificationFlowId };
}

/** A password login on a new flow; returns the answer (200 with the session on success). */
export async function logIn(browser: InjectBrowser, identifier: string, password = testPassword, request: Send = {}) {
  const flow = await browser.get('/self-service/login/browser', request);
  if (flow.statusCode !== 200) return flow;
  return browser.post(`/self-service/login?flow=${jsonOf(flow).id}`, { method: 'password', identifier, password, csrf_token: browser.csrf() }, request);
}
