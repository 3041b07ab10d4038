// One client host's share of `npm run test:scale`: run inside a client namespace
// (`ip netns exec mw-client1 node --import tsx load-client.ts`), reads a LoadPlan on stdin, sends
// gateway calls, console reads and top-ups through HAProxy for the plan's time, and writes a
// LoadResult on stdout.
import type { KeyTally, LoadPlan, LoadResult } from './load-plan.js';

const plan = JSON.parse(await new Response(process.stdin as unknown as ReadableStream).text()) as LoadPlan;
const result: LoadResult = { host: plan.host, counts: {}, keys: {}, unclean: [], uncleanCount: 0, paid: [] };
const count = (kind: string) => (result.counts[kind] = (result.counts[kind] ?? 0) + 1);
const tally = (key: string): KeyTally => (result.keys[key] ??= { answers: [], cutShort: 0, refused: 0, lost: 0 });
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;
const deadline = Date.now() + plan.durationMs;
const running = () => Date.now() < deadline;

/** An answer's JSON body, or {} for one that is not JSON (HAProxy's own 502 and 503 are HTML). */
function jsonOf(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A failure with no HTTP answer: the connection refused, reset or cut (an instance killed). */
const networkKind = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `network ${cause?.code ?? (error as Error).name ?? 'error'}`;
};

/**
 * An answer's kind. HAProxy's own answers (a 502 or 503 when no instance could take the call) carry
 * no X-Meterway-Instance; an instance's 5xx must be a 503 with Retry-After, or it is unclean.
 */
function answerKind(prefix: string, response: Response, code: string | undefined, detail: unknown) {
  const fromInstance = response.headers.has('x-meterway-instance');
  const retryAfter = response.headers.has('retry-after');
  let kind = `${prefix} ${response.status}${code ? ` ${code}` : ''}`;
  if (response.status >= 500) kind += `${retryAfter ? ' (Retry-After)' : ''}${fromInstance ? '' : ' (from HAProxy)'}`;
  if (response.status >= 500 && fromInstance && !(response.status === 503 && retryAfter)) {
    result.uncleanCount += 1;
    if (result.unclean.length < 10) result.unclean.push({ kind, instance: response.headers.get('x-meterway-instance'), at: new Date().toISOString(), detail });
  }
  return kind;
}

/** Reads a server-sent event stream: the answer's id, an error event's code, whether it reached `[DONE]`. */
function readEvents(text: string) {
  let id: string | undefined;
  let code: string | undefined;
  let done = false;
  for (const event of text.split('\n\n')) {
    const data = event.replace(/^data: /, '').trim();
    if (!data) continue;
    if (data === '[DONE]') done = true;
    else {
      const json = JSON.parse(data) as { id?: string; error?: { code?: string } };
      if (json.error) code = json.error.code ?? 'error';
      id ??= json.id;
    }
  }
  return { id, code, done };
}

async function gatewayCall(key: { id: string; value: string }) {
  const stream = Math.random() < 0.5;
  const keyTally = tally(key.id);
  let status = 0;
  try {
    const response = await fetch(`${plan.apiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.value}`, origin: plan.origin, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: plan.model,
        stream,
        max_tokens: 8 + Math.floor(Math.random() * 24),
        messages: [{ role: 'user', content: 'Count a few Greek letters for the scale test.' }],
      }),
      signal: AbortSignal.timeout(30_000),
    });
    status = response.status;
    const text = await response.text();
    if (status !== 200) {
      const code = (jsonOf(text) as { error?: { code?: string } }).error?.code;
      if (response.headers.has('x-meterway-instance')) keyTally.refused += 1;
      else keyTally.lost += 1;
      return count(answerKind('gateway', response, code, text.slice(0, 300)));
    }
    const answer = stream ? readEvents(text) : { id: (JSON.parse(text) as { id?: string }).id, code: undefined, done: true };
    if (!answer.done || answer.code || !answer.id) {
      keyTally.cutShort += 1;
      return count(`gateway 200 cut short${answer.code ? ` (${answer.code})` : ''}`);
    }
    keyTally.answers.push({ id: answer.id, instance: response.headers.get('x-meterway-instance') ?? '', at: Date.now() });
    return count(`gateway 200${stream ? ' streamed' : ''}`);
  } catch (error) {
    // Headers of a 200 came and then the connection went: the call may have reached the model.
    if (status === 200) keyTally.cutShort += 1;
    else keyTally.lost += 1;
    return count(`gateway ${status === 200 ? '200 then ' : ''}${networkKind(error)}`);
  }
}

async function gatewayWorker() {
  while (running()) await gatewayCall(pick(pick(plan.accounts).keys));
}

/** A console request as the signed-in browser makes it (session cookie, the console's Origin). */
async function consoleRequest(account: LoadPlan['accounts'][number], url: string, label: string, body?: unknown) {
  try {
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      headers: { cookie: account.cookie, origin: plan.consoleUrl, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    const json = jsonOf(text);
    count(answerKind(label, response, response.status >= 400 ? ((json.code ?? (json.error as { id?: string })?.id) as string) : undefined, text.slice(0, 300)));
    return { status: response.status, json };
  } catch (error) {
    count(`${label} ${networkKind(error)}`);
    return { status: 0, json: {} };
  }
}

async function consoleReader() {
  while (running()) {
    const account = pick(plan.accounts);
    for (const path of ['/bff/me', '/bff/chat-completions', '/bff/usage/daily']) await consoleRequest(account, `${plan.apiUrl}${path}`, `console ${path}`);
    await consoleRequest(account, `${plan.identityUrl}/sessions/whoami`, 'identity /sessions/whoami');
    await sleep(100);
  }
}

/** A top-up as the console makes it: a checkout session, then the sandbox's card form confirming it. */
async function topUps() {
  while (running()) {
    await sleep(plan.topUpEveryMs * (0.5 + Math.random()));
    if (!running()) return;
    const account = pick(plan.accounts);
    const started = await consoleRequest(account, `${plan.apiUrl}/bff/stripe/checkout-session`, 'top-up checkout-session', { amount: plan.topUpDollars });
    if (started.status !== 200) continue;
    const { checkoutSessionId, clientSecret } = started.json as { checkoutSessionId: string; clientSecret: string };
    const confirmed = await consoleRequest(account, `${plan.apiUrl}/sandbox/checkout-sessions/${checkoutSessionId}/confirm`, 'top-up confirm', {
      clientSecret,
      cardNumber: '4242 4242 4242 4242',
      expiry: '12/34',
      cvc: '123',
    });
    if (confirmed.status === 202) result.paid.push(checkoutSessionId);
  }
}

await Promise.all([...Array.from({ length: plan.gatewayWorkers }, gatewayWorker), consoleReader(), topUps()]);
process.stdout.write(`${JSON.stringify(result)}\n`);
