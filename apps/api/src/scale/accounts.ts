import type { LoadPlan } from './load-plan.js';

/** The topology's URLs, from .scale/env. */
export type ScaleUrls = { apiUrl: string; identityUrl: string; consoleUrl: string; identityInstances: string[] };

type Account = LoadPlan['accounts'][number];
const password = 'a long and unusual passphrase 42';

/** The parts of identity's flows (Kratos' shapes) and the api's answers this file reads. */
type Json = {
  id?: string;
  state?: string;
  ui?: { nodes: { attributes: { name?: string; value?: string } }[] };
  continue_with?: { action: string; flow?: { id: string } }[];
  [field: string]: unknown;
};
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A browser's cookie jar against identity, as apps/api/src/testing/identity-users.ts keeps it. */
function browser(identityUrl: string) {
  const cookies = new Map<string, string>();
  const header = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${identityUrl}${path}`, {
      method,
      headers: { accept: 'application/json', cookie: header(), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/max-age=0|max-age=-/i.test(line)) cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
    return { status: response.status, body: ((await response.json().catch(() => null)) ?? {}) as Json };
  }
  return { call, header };
}

/** The verification code: each identity instance keeps its own dev outbox, so every one is asked. */
async function verificationCode(urls: ScaleUrls, email: string): Promise<string> {
  for (let attempt = 0; attempt < 40; attempt++) {
    for (const instance of urls.identityInstances) {
      const outbox = await fetch(`${instance}/dev/outbox?to=${encodeURIComponent(email)}`)
        .then((response) => response.json() as Promise<{ messages?: { code?: string }[] }>)
        .catch(() => undefined);
      const code = outbox?.messages?.at(-1)?.code;
      if (code) return code;
    }
    await sleep(250);
  }
  throw new Error(`no verification code for ${email} in any identity instance's outbox`);
}

/** Signs a person up and verifies the address through IDENTITY_URL (HAProxy); returns the Cookie header. */
async function signUp(urls: ScaleUrls, email: string): Promise<string> {
  const { call, header } = browser(urls.identityUrl);
  const flow = await call('GET', '/self-service/registration/browser');
  const csrf = flow.body.ui?.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value;
  const registered = await call('POST', `/self-service/registration?flow=${flow.body.id}`, {
    method: 'password',
    traits: { email },
    password,
    csrf_token: csrf,
  });
  if (registered.status !== 200) throw new Error(`sign-up of ${email}: ${registered.status} ${JSON.stringify(registered.body)}`);
  const verificationId = registered.body.continue_with?.find((item) => item.action === 'show_verification_ui')?.flow?.id;
  const verified = await call('POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code: await verificationCode(urls, email) });
  if (verified.body?.state !== 'passed_challenge') throw new Error(`verification of ${email}: ${JSON.stringify(verified.body)}`);
  return header();
}

/** A console request as the signed-in browser makes it. */
async function bff(urls: ScaleUrls, cookie: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${urls.apiUrl}${path}`, {
    method,
    headers: { cookie, origin: urls.consoleUrl, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = ((await response.json().catch(() => null)) ?? {}) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A top-up through the sandbox, as the console's checkout makes it; waits until the credit shows. */
async function topUp(urls: ScaleUrls, cookie: string, dollars: number) {
  const remaining = async () => (await bff(urls, cookie, 'GET', '/bff/me')).remainingSpendAmount as number;
  const before = await remaining();
  const { checkoutSessionId, clientSecret } = (await bff(urls, cookie, 'POST', '/bff/stripe/checkout-session', { amount: dollars })) as {
    checkoutSessionId: string;
    clientSecret: string;
  };
  const card = { clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' };
  await bff(urls, cookie, 'POST', `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`, card);
  for (let attempt = 0; attempt < 80; attempt++) {
    if ((await remaining()) > before) return checkoutSessionId;
    await sleep(250);
  }
  throw new Error(`top-up ${checkoutSessionId} never credited`);
}

/**
 * A signed-up, verified person with some credit and two keys for `origin`: one with room to spare,
 * one with a small monthly budget, so budgets run out during the load as well as credit.
 */
export async function prepareAccount(urls: ScaleUrls, origin: string, { credit, smallBudget }: { credit: number; smallBudget: number }) {
  const email = `scale-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signUp(urls, email);
  const keys: Account['keys'] = [];
  for (const budget of [1000, smallBudget]) {
    const key = await bff(urls, cookie, 'POST', '/bff/publishable-keys', {
      name: `Scale key ($${budget})`,
      budget,
      budgetType: 'monthly',
      allowedOrigins: [origin],
      // No per-address or per-end-user caps: three client hosts send all the load.
      perClientLimits: { requestsPerMinute: null, spendPerDay: null },
      perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
    });
    keys.push({ id: key.id as string, value: key.value as string });
  }
  const paid = await topUp(urls, cookie, credit);
  return { account: { email, cookie, keys } satisfies Account, paid };
}
