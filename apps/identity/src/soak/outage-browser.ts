import { cookieJar } from '../testing/cookie-jar.js';
import { csrfOf } from '../testing/flows.js';

export type Step = 'registration flow' | 'registration' | 'login flow' | 'login' | 'whoami';

/** The parts of identity's answers (flows, sessions, errors) these tests read. */
type Body = {
  id?: unknown;
  ui?: { nodes?: unknown };
  active?: unknown;
  session?: { active?: unknown };
  identity?: { id?: unknown };
  error?: { code?: unknown; status?: unknown; reason?: unknown; details?: { retry_after?: unknown } };
};

/** One answer as the browser met it; status 0 when the connection failed or nothing came within 10 s. */
export type Answer = {
  step: Step;
  sentAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  contentType: string | null;
  body: Body | undefined;
  failure?: string;
};

type Flow = { id: string; ui: { nodes: { attributes: unknown }[] } };

/** The flow a successful 'registration flow' or 'login flow' answer carries. */
export const flowOf = (answer: Answer) => answer.body as Flow;

/**
 * A browser as the console drives identity (JSON flows, its own cookies, as the Ory SDK sends them),
 * reporting every answer to `record`, failures included.
 */
export function outageBrowser(baseUrl: string, record: (answer: Answer) => void) {
  const jar = cookieJar();

  async function send(step: Step, path: string, body?: unknown): Promise<Answer> {
    const sentAt = Date.now();
    let answer: Answer;
    try {
      const response = await jar.fetch(`${baseUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      let parsed: Body | undefined;
      try {
        parsed = text ? (JSON.parse(text) as Body) : undefined;
      } catch {
        parsed = undefined;
      }
      const headers = { retryAfter: response.headers.get('retry-after'), contentType: response.headers.get('content-type') };
      answer = { step, sentAt, ms: Date.now() - sentAt, status: response.status, ...headers, body: parsed };
    } catch (error) {
      answer = { step, sentAt, ms: Date.now() - sentAt, status: 0, retryAfter: null, contentType: null, body: undefined, failure: (error as Error).message };
    }
    record(answer);
    return answer;
  }

  return {
    startRegistration: () => send('registration flow', '/self-service/registration/browser'),
    register: (flow: Flow, email: string, password: string) =>
      send('registration', `/self-service/registration?flow=${flow.id}`, { method: 'password', traits: { email }, password, csrf_token: csrfOf(flow) }),
    startLogin: () => send('login flow', '/self-service/login/browser'),
    logIn: (flow: Flow, email: string, password: string) =>
      send('login', `/self-service/login?flow=${flow.id}`, { method: 'password', identifier: email, password, csrf_token: csrfOf(flow) }),
    whoami: () => send('whoami', '/sessions/whoami'),
  };
}

export type OutageBrowser = ReturnType<typeof outageBrowser>;

/** What a step answers when it worked: a flow, a signed-in session, an active session. */
export function succeeded(answer: Answer): boolean {
  if (answer.status !== 200 || !answer.body) return false;
  switch (answer.step) {
    case 'registration flow':
    case 'login flow':
      return typeof answer.body.id === 'string' && Array.isArray(answer.body.ui?.nodes);
    case 'registration':
      return answer.body.session?.active === true && typeof answer.body.identity?.id === 'string';
    case 'login':
      return answer.body.session?.active === true;
    case 'whoami':
      return answer.body.active === true;
  }
}

/** A clean refusal while the database is away: 503, Retry-After, Kratos' envelope saying to retry. */
export function cleanlyUnavailable(answer: Answer): boolean {
  const error = answer.body?.error;
  return (
    answer.status === 503 &&
    answer.retryAfter === '5' &&
    Boolean(answer.contentType?.startsWith('application/json')) &&
    error?.code === 503 &&
    error.status === 'Service Unavailable' &&
    error.details?.retry_after === 5 &&
    typeof error.reason === 'string'
  );
}
