import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions } from '../db/schema/index.js';
import { abandonGateway, callGateway, type ChatRequest, type GatewayOutcome } from './gateway-client.js';
import { checkMoney, checkUsageCharged } from './money-invariants.js';
import { postgresUrlFor, report, soakConsoleOrigin, soakModel, soakOrigin, type SoakStack, startSoakStack, webhookSecret } from './soak-stack.js';

const serverUrl = postgresUrlFor('money under load');
// CI runs a short load; `npm run test:long` (or `test:soak`) the full minute.
const loadSeconds = Number(process.env.SOAK_LOAD_SECONDS ?? 10);
const soakTool = {
  type: 'function',
  function: {
    name: 'lookup_letter',
    description: 'Looks up a Greek letter by name.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};
const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);

/** A small seeded generator (mulberry32), so a failing run can be replayed with its SOAK_SEED. */
function seeded(start: number) {
  let state = start >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (low: number, high: number) => low + Math.floor(next() * (high - low + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

/**
 * How an organisation lives through the run: its first credit, its top-ups, its keys' first
 * budget and how much each key edit raises it (in cents). Budgets only rise, so "spent + held ≤
 * budget" must hold at every instant; lowering a budget below what was spent is allowed by design.
 */
/** allowanceShare: each key's daily allowance per client address, as a share of its first budget (null: none). */
type Profile = {
  name: string;
  creditDollars: number;
  topUpDollars: [number, number];
  topUpEveryMs: [number, number];
  budgetCents: number;
  raiseCents: [number, number];
  allowanceShare: number | null;
};
const profiles: Profile[] = [
  {
    name: 'credit-bound',
    creditDollars: 1,
    topUpDollars: [1, 1],
    topUpEveryMs: [15000, 20000],
    budgetCents: 100_000,
    raiseCents: [0, 0],
    allowanceShare: null,
  },
  { name: 'budget-bound', creditDollars: 100, topUpDollars: [1, 5], topUpEveryMs: [4000, 8000], budgetCents: 50, raiseCents: [5, 15], allowanceShare: 1.5 },
  { name: 'mixed', creditDollars: 2, topUpDollars: [1, 3], topUpEveryMs: [1000, 3000], budgetCents: 100, raiseCents: [10, 30], allowanceShare: null },
  { name: 'mixed', creditDollars: 2, topUpDollars: [1, 3], topUpEveryMs: [1000, 3000], budgetCents: 100, raiseCents: [10, 30], allowanceShare: null },
];

type Key = { id: string; value: string; budgetCents: number };
type Organisation = { profile: Profile; cookie: string; keys: Key[]; paid: string[] };

describe.skipIf(!serverUrl)(`money invariants under ${loadSeconds} s of load on two api processes sharing one Postgres (needs DATABASE_URL)`, () => {
  let stack: SoakStack;
  beforeAll(async () => {
    stack = await startSoakStack({ serverUrl: serverUrl!, instances: 2, identity: true, stripe: true });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it(
    'keeps balance = ledger ≥ 0, spend ≤ budget, and charges every upstream usage exactly once, while calls, top-ups and key edits run on both instances',
    async () => {
      const random = seeded(seed);
      const counts = {
        gateway: {} as Record<string, number>,
        checkoutsStarted: 0,
        checkoutsPaid: 0,
        webhookDeliveries: 0,
        keyEdits: 0,
        keyRotations: 0,
        mutationsThrottled: 0,
        invariantSamples: 0,
        invariantChecks: 0,
      };
      // The first few unexpected answers, kept whole for the failure message; all of them counted.
      const unexpected: unknown[] = [];
      let unexpectedCount = 0;
      const violations: string[] = [];
      const answers = new Map<string, string[]>();
      let running = true;
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const anyInstance = () => random.pick(stack.instances).url;
      const noteUnexpected = (what: unknown) => {
        unexpectedCount += 1;
        if (unexpected.length < 20) unexpected.push(what);
      };

      async function bff(organisation: Organisation, method: string, path: string, body?: unknown) {
        const response = await fetch(`${anyInstance()}${path}`, {
          method,
          headers: { cookie: organisation.cookie, origin: soakConsoleOrigin, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const json = response.status === 204 ? null : ((await response.json()) as Record<string, any>);
        // 60 changes a minute per person and instance: a person editing this fast is told to wait.
        if (response.status === 429 && method !== 'GET') counts.mutationsThrottled += 1;
        else if (response.status >= 300) noteUnexpected({ path, status: response.status, json });
        return { status: response.status, json };
      }

      async function createKey(organisation: Organisation): Promise<Key | undefined> {
        const { budgetCents, allowanceShare } = organisation.profile;
        // Every call comes from this one address: no request cap per address. The budget-bound keys
        // meet their budget first and, once raised past it, their address's daily allowance.
        const spendPerDay = allowanceShare === null ? null : Math.max(0.01, Math.round(budgetCents * allowanceShare) / 100);
        const created = await bff(organisation, 'POST', '/bff/publishable-keys', {
          name: 'Soak key',
          budget: budgetCents / 100,
          budgetType: 'monthly',
          allowedOrigins: [soakOrigin],
          perClientLimits: { requestsPerMinute: null, spendPerDay },
        });
        return created.status === 201 ? { id: created.json!.id, value: created.json!.value, budgetCents } : undefined;
      }

      /** A top-up as the console and Stripe make it: checkout, payment, then the webhook (sometimes to both instances at once). */
      async function topUp(organisation: Organisation, dollars: number) {
        counts.checkoutsStarted += 1;
        const started = await bff(organisation, 'POST', '/bff/stripe/checkout-session', { amount: dollars });
        if (started.status !== 200) return;
        const id = started.json!.checkoutSessionId as string;
        stack.stripe.complete(id);
        const payload = JSON.stringify(stack.stripe.event('checkout.session.completed', id));
        const targets = random.next() < 0.3 ? stack.instances.map((instance) => instance.url) : [anyInstance()];
        await Promise.all(
          targets.map(async (url) => {
            // Stripe retries a delivery until it is acknowledged.
            for (let attempt = 0; attempt < 5; attempt++) {
              counts.webhookDeliveries += 1;
              const signature = stack.stripe.stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
              const response = await fetch(`${url}/webhooks/stripe`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'stripe-signature': signature },
                body: payload,
              });
              if (response.status === 200) return;
              noteUnexpected({ webhook: id, status: response.status, body: await response.text() });
              await sleep(200);
            }
          }),
        );
        organisation.paid.push(id);
        counts.checkoutsPaid += 1;
      }

      async function gatewayWorker() {
        while (running) {
          const organisation = random.pick(organisations);
          const key = random.pick(organisation.keys);
          const stream = random.next() < 0.5;
          const request: ChatRequest = {
            model: soakModel,
            stream,
            // One call in ten names no max_tokens: it is admitted for all the credit or budget left.
            ...(random.next() < 0.1 ? {} : { max_tokens: random.between(1, 32) }),
            // Mixed shapes: several choices, tool definitions and images (billed as input).
            ...(random.next() < 0.3 ? { n: random.between(2, 3) } : {}),
            ...(random.next() < 0.3 ? { tools: [soakTool] } : {}),
            ...(random.next() < 0.2 ? { image: random.pick(['low', 'high'] as const) } : {}),
            ...(stream && random.next() < 0.5 ? { stream_options: { include_usage: true } } : {}),
          };
          // One call in ten is abandoned by its client once the answer starts: the gateway must still
          // read the provider's answer to its end and charge what the provider reports.
          if (random.next() < 0.1) {
            const status = await abandonGateway(anyInstance(), key.value, soakOrigin, request);
            const label = status === 200 ? 'abandoned by the client' : `abandoned after ${status}`;
            counts.gateway[label] = (counts.gateway[label] ?? 0) + 1;
            continue;
          }
          const outcome: GatewayOutcome = await callGateway(anyInstance(), key.value, soakOrigin, request, AbortSignal.timeout(30_000));
          const label =
            outcome.status === 200
              ? outcome.complete && !outcome.code && outcome.upstreamId && outcome.completionId
                ? '200'
                : '200 broken'
              : `${outcome.status} ${outcome.code ?? outcome.failure}`;
          counts.gateway[label] = (counts.gateway[label] ?? 0) + 1;
          if (label === '200') answers.set(outcome.upstreamId!, [...(answers.get(outcome.upstreamId!) ?? []), outcome.completionId!]);
          // Refusals a browser app is expected to meet here: credit, budget or the address's allowance
          // used up, a key just deleted (rotation), an origin just removed from the key (an edit).
          else if (
            !['402 insufficient_quota', '429 budget_exceeded', '429 client_allowance_exceeded', '401 invalid_api_key', '403 origin_not_allowed'].includes(label)
          )
            noteUnexpected({ request, outcome });
        }
      }

      async function topUps(organisation: Organisation) {
        for (;;) {
          await sleep(random.between(...organisation.profile.topUpEveryMs));
          if (!running) return;
          await topUp(organisation, random.between(...organisation.profile.topUpDollars));
        }
      }

      async function keyEdits(organisation: Organisation) {
        for (let edit = 1; ; edit++) {
          await sleep(random.between(1000, 2000));
          if (!running) return;
          if (edit % 6 === 0) {
            // Rotation: a new key, and the oldest deleted while calls with it may be in flight.
            const fresh = await createKey(organisation);
            const [oldest, ...rest] = organisation.keys;
            if (!fresh || !oldest) continue;
            organisation.keys = [...rest, fresh];
            if ((await bff(organisation, 'DELETE', `/bff/publishable-keys/${oldest.id}`)).status === 204) counts.keyRotations += 1;
            continue;
          }
          const key = random.pick(organisation.keys);
          const budgetCents = key.budgetCents + random.between(...organisation.profile.raiseCents);
          const allowedOrigins = random.next() < 0.15 ? ['https://elsewhere.example.com'] : [soakOrigin];
          const edited = await bff(organisation, 'PUT', `/bff/publishable-keys/${key.id}`, {
            name: `Soak key, edit ${edit}`,
            budget: budgetCents / 100,
            budgetType: 'monthly',
            allowedOrigins,
          });
          if (edited.status === 200) {
            key.budgetCents = budgetCents;
            counts.keyEdits += 1;
          }
        }
      }

      async function sampleInvariants() {
        while (running) {
          const result = await checkMoney(stack.db.db);
          counts.invariantSamples += 1;
          counts.invariantChecks += result.checks;
          violations.push(...result.violations.slice(0, 20));
          await sleep(500);
        }
      }

      const organisations: Organisation[] = [];
      for (const profile of profiles) {
        const organisation: Organisation = { profile, cookie: stack.signUp(), keys: [], paid: [] };
        expect((await bff(organisation, 'GET', '/bff/me')).status).toBe(200);
        for (let i = 0; i < 2; i++) {
          const key = await createKey(organisation);
          if (key) organisation.keys.push(key);
        }
        expect(organisation.keys).toHaveLength(2);
        await topUp(organisation, profile.creditDollars);
        organisations.push(organisation);
      }

      const startedAt = Date.now();
      const loops = [
        ...Array.from({ length: 24 }, () => gatewayWorker()),
        ...organisations.flatMap((organisation) => [topUps(organisation), keyEdits(organisation)]),
        sampleInvariants(),
      ];
      await sleep(loadSeconds * 1000);
      running = false;
      await Promise.all(loops);
      const loadMs = Date.now() - startedAt;

      // A graceful stop lets every call in flight finish and be settled; then nothing may be held.
      const exitCodes = await Promise.all(stack.instances.map((instance) => instance.stop()));
      const final = await checkMoney(stack.db.db, { settled: true });
      const usage = await checkUsageCharged(stack.db.db, stack.upstream.calls.values(), answers);
      const paid = organisations.flatMap((organisation) => organisation.paid);
      const succeeded = paid.length
        ? await stack.db.db
            .select({ id: checkoutSessions.id, status: checkoutSessions.status })
            .from(checkoutSessions)
            .where(inArray(checkoutSessions.id, paid))
        : [];
      const uncredited = succeeded.filter((session) => session.status !== 'SUCCEEDED').map((session) => session.id);
      violations.push(...final.violations, ...usage.violations, ...uncredited.map((id) => `checkout ${id} was paid but is not SUCCEEDED`));
      const requestsSent = Object.values(counts.gateway).reduce((sum, count) => sum + count, 0);

      report(`money under load (${loadSeconds} s, seed ${seed})`, {
        requestsSent,
        requestsPerSecond: Math.round((requestsSent / loadMs) * 1000),
        gatewayOutcomes: counts.gateway,
        upstreamUsages: [...stack.upstream.calls.values()].filter((call) => call.usageSent).length,
        checkoutsStarted: counts.checkoutsStarted,
        checkoutsPaid: counts.checkoutsPaid,
        webhookDeliveries: counts.webhookDeliveries,
        keyEdits: counts.keyEdits,
        keyRotations: counts.keyRotations,
        mutationsThrottled: counts.mutationsThrottled,
        unexpectedAnswers: unexpectedCount,
        invariantSamples: counts.invariantSamples,
        invariantChecks: counts.invariantChecks + final.checks + usage.checks + paid.length,
        violations: violations.length,
      });

      expect(violations).toEqual([]);
      expect(unexpected).toEqual([]);
      expect(exitCodes).toEqual([0, 0]);
      expect(succeeded).toHaveLength(paid.length);
      // The run reached what it is about: calls served, and both the credit and the budgets running out.
      const refused = (status: number, code: string) => (counts.gateway[`${status} ${code}`] ?? 0) + (counts.gateway[`abandoned after ${status}`] ?? 0);
      expect(counts.gateway['200']).toBeGreaterThan(0);
      expect(refused(402, 'insufficient_quota')).toBeGreaterThan(0);
      expect(refused(429, 'budget_exceeded')).toBeGreaterThan(0);
      expect(counts.invariantSamples).toBeGreaterThan(0);
    },
    (loadSeconds + 120) * 1000,
  );
});
