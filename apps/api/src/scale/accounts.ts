import { identityUsers } from '../testing/identity-users.js';
import type { LoadPlan } from './load-plan.js';

/** The topology's URLs, from .scale/env. */
export type ScaleUrls = { apiUrl: string; identityUrl: string; consoleUrl: string; identityInstances: string[] };

type Account = LoadPlan['accounts'][number];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

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
  // Signed up through HAProxy: whichever identity instance served it holds the code in its outbox.
  const { cookie } = await identityUsers(urls.identityUrl, urls.identityInstances).signUp({ email });
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
