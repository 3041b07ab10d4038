import { randomBytes } from 'node:crypto';
import { createDb, type DbHandle } from '@meterway/db';
import { createTestDb, type PrivatePostgres, startPrivatePostgres, type TestDbHandle } from '@meterway/db/testing';
import { freePort } from '@meterway/service';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { migrations, schema } from '../db/index.js';
import { credentials, identities, recoveryAddresses, verifiableAddresses } from '../db/schema/identities.js';
import { loadIdentityConfig } from '../env.js';
import { testPassword } from '../testing/flows.js';
import { type Answer, cleanlyUnavailable, flowOf, type OutageBrowser, outageBrowser, type Step, succeeded } from './outage-browser.js';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) process.stdout.write('[identity postgres crash] skipped: it crashes a private Postgres server; set DATABASE_URL (npm run test:services).\n');

type Phase = 'up' | 'down' | 'back';
type Person = { email: string; browser: OutageBrowser };
const steps: Step[] = ['registration flow', 'registration', 'login flow', 'login', 'whoami'];
/** What a browser can still send while the database is down (a flow's submission needs a flow first). */
const firstSteps: Step[] = ['registration flow', 'login flow', 'whoami'];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newEmail = () => `outage-${randomBytes(6).toString('hex')}@example.com`;

describe.skipIf(!serverUrl)('identity through a Postgres crash (needs DATABASE_URL; crashes a private server of its own)', () => {
  let postgres: PrivatePostgres;
  let testDb: TestDbHandle<typeof schema>;
  let db: DbHandle<typeof schema>;
  let app: FastifyInstance;
  let baseUrl = '';
  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    testDb = await createTestDb({ schema, migrations, databaseUrl: postgres.url });
    // The service's own pool, as server.ts opens it; testDb's is only for looking at the rows afterwards.
    db = await createDb({ schema, service: 'identity', dataDir: '', databaseUrl: testDb.databaseUrl });
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // Every request comes from one address here; the per-IP limits are not under test.
    const config = loadIdentityConfig({
      LOG_LEVEL: 'silent',
      IDENTITY_URL: baseUrl,
      CONSOLE_URL: 'http://127.0.0.1:3999',
      IDENTITY_RATE_LIMIT_MULTIPLIER: '1000',
    });
    app = await createApp({ config, db });
    await app.listen({ host: '127.0.0.1', port });
  }, 120_000);
  afterAll(async () => {
    // The server goes whatever happened: a pool stuck on a leaked client must not leave it running.
    await Promise.race([Promise.allSettled([app?.close(), db?.close()]), pause(10_000)]);
    await testDb?.close().catch(() => undefined);
    await postgres?.destroy();
  }, 60_000);

  it('answers 503 with Retry-After in Kratos’ shape while the database is down; once it has recovered, the same process signs people up and in again, and no identity is half made', async () => {
    const seen: Answer[] = [];
    const browser = () => outageBrowser(baseUrl, (answer) => seen.push(answer));
    let crashedAt = Infinity;
    let backAt = Infinity;
    const phaseOf = (answer: Answer): Phase => (answer.sentAt < crashedAt ? 'up' : answer.sentAt < backAt ? 'down' : 'back');
    const since = (from: number, step: Step, ok: (answer: Answer) => boolean) =>
      seen.filter((answer) => answer.sentAt >= from && answer.step === step && ok(answer)).length;

    async function signUp(): Promise<Person> {
      const person = { email: newEmail(), browser: browser() };
      const flow = await person.browser.startRegistration();
      expect(succeeded(await person.browser.register(flowOf(flow), person.email, testPassword))).toBe(true);
      return person;
    }
    const people = await Promise.all(Array.from({ length: 4 }, signUp));
    // Flows opened before the crash and submitted while the database is down, then again once it is back.
    const heldSignUps = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const held = { email: newEmail(), browser: browser() };
        return { ...held, flow: flowOf(await held.browser.startRegistration()) };
      }),
    );
    const heldLogins = await Promise.all(
      people.slice(0, 3).map(async ({ email }) => {
        const held = { email, browser: browser() };
        return { ...held, flow: flowOf(await held.browser.startLogin()) };
      }),
    );

    // Every sign-up tried, and what it answered: each must end up whole or not at all.
    const signUps: { email: string; status: number }[] = [];
    let running = true;
    async function signingUp() {
      while (running) {
        const visitor = browser();
        const flow = await visitor.startRegistration();
        if (succeeded(flow)) {
          const email = newEmail();
          const registered = await visitor.register(flowOf(flow), email, testPassword);
          signUps.push({ email, status: registered.status });
          if (succeeded(registered)) await visitor.whoami();
        }
        await pause(20);
      }
    }
    async function loggingIn(worker: number) {
      for (let i = worker; running; i++) {
        const person = people[i % people.length]!;
        const visitor = browser();
        const flow = await visitor.startLogin();
        if (succeeded(flow) && succeeded(await visitor.logIn(flowOf(flow), person.email, testPassword))) await visitor.whoami();
        await pause(20);
      }
    }
    async function signedIn(person: Person) {
      while (running) {
        await person.browser.whoami();
        await pause(20);
      }
    }
    const workers = [...Array.from({ length: 4 }, signingUp), loggingIn(0), loggingIn(1), ...people.map(signedIn)];

    await pause(1000);
    crashedAt = Date.now();
    await postgres.stop('immediate');
    // At least two seconds down, and long enough for every kind of request to meet the missing database.
    for (let waited = 0; waited < 2000 || (waited < 15_000 && firstSteps.some((step) => since(crashedAt, step, cleanlyUnavailable) < 3)); waited += 100)
      await pause(100);
    const heldWhileDown = await Promise.all([
      ...heldSignUps.map((held) => held.browser.register(held.flow, held.email, testPassword)),
      ...heldLogins.map((held) => held.browser.logIn(held.flow, held.email, testPassword)),
    ]);
    const healthDown = (await fetch(`${baseUrl}/healthz`)).status;

    await postgres.start();
    backAt = Date.now();
    for (let waited = 0; waited < 30_000 && steps.some((step) => since(backAt, step, succeeded) < 3); waited += 100) await pause(100);
    running = false;
    await Promise.all(workers);
    // The same flows, sent again as Retry-After says: they work now.
    const heldWhenBack = await Promise.all([
      ...heldSignUps.map((held) => held.browser.register(held.flow, held.email, testPassword)),
      ...heldLogins.map((held) => held.browser.logIn(held.flow, held.email, testPassword)),
    ]);
    const healthBack = (await fetch(`${baseUrl}/healthz`)).status;

    // No half-made identity: each has its password, its verifiable address and its recovery address, once.
    const made = await testDb.db
      .select({
        id: identities.id,
        passwords: sql<number>`(select count(*) from ${credentials} c where c.identity_id = ${identities}.id and c.type = 'password')::int`,
        verifiable: sql<number>`(select count(*) from ${verifiableAddresses} v where v.identity_id = ${identities}.id)::int`,
        recovery: sql<number>`(select count(*) from ${recoveryAddresses} r where r.identity_id = ${identities}.id)::int`,
      })
      .from(identities);
    const halfMade = made.filter((row) => row.passwords !== 1 || row.verifiable !== 1 || row.recovery !== 1);
    // Each sign-up that answered 200 can log in; one that answered 503 either was made whole (and can
    // log in) or left nothing behind (and the address can sign up again).
    const signUpOutcomes = await Promise.all(
      signUps.map(async ({ email, status }) => {
        const visitor = outageBrowser(baseUrl, () => undefined);
        const login = await visitor.logIn(flowOf(await visitor.startLogin()), email, testPassword);
        if (succeeded(login)) return { email, status, outcome: 'logs in' };
        const again = await visitor.register(flowOf(await visitor.startRegistration()), email, testPassword);
        return { email, status, outcome: succeeded(again) ? 'signs up again' : `neither (${login.status}, ${again.status})` };
      }),
    );

    // Every connection was given back to the pool: the service still shuts down (a client leaked by
    // the crash would hold the pool's end, and so the shutdown, for ever).
    const shutdown = await Promise.race([
      app
        .close()
        .then(() => db.close())
        .then(() => 'clean'),
      pause(15_000).then(() => 'stuck'),
    ]);

    const count = (answers: Answer[]) =>
      answers.reduce<Record<string, number>>(
        (counts, answer) => ({ ...counts, [`${answer.step} ${answer.status}`]: (counts[`${answer.step} ${answer.status}`] ?? 0) + 1 }),
        {},
      );
    const unclean = seen.filter((answer) => !succeeded(answer) && !cleanlyUnavailable(answer));
    const wrongOutcomes = signUpOutcomes.filter((item) => (item.status === 200 ? item.outcome !== 'logs in' : item.outcome.startsWith('neither')));
    const violations = unclean.length + halfMade.length + wrongOutcomes.length;
    process.stdout.write(
      `\n[identity postgres crash]\n${Object.entries({
        requestsSent: seen.length + signUpOutcomes.length * 2,
        answersByPhase: Object.fromEntries(
          (['up', 'down', 'back'] as const).map((phase) => [phase, count(seen.filter((answer) => phaseOf(answer) === phase))]),
        ),
        slowest503Ms: Math.max(0, ...seen.filter((answer) => answer.status === 503).map((answer) => answer.ms)),
        signUps: signUps.length,
        signUpsAnswered503: signUps.filter((item) => item.status === 503).length,
        invariantChecks: made.length + signUpOutcomes.length,
        violations,
      })
        .map(([name, value]) => `  ${name}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
        .join('\n')}\n`,
    );

    // Every answer was a success or a clean, retryable 503: no 500, no dropped connection, no hang.
    expect(unclean.map(({ step, status, body, failure }) => ({ step, status, body, failure }))).toEqual([]);
    for (const step of firstSteps) expect(since(crashedAt, step, cleanlyUnavailable)).toBeGreaterThanOrEqual(3);
    expect(heldWhileDown.every(cleanlyUnavailable)).toBe(true);
    expect(healthDown).toBe(503);
    // Recovered from a crash, and served again by the process that never stopped: sign-ups, logins, sessions from before.
    expect(postgres.serverLog()).toMatch(/not properly shut down; automatic recovery in progress/);
    for (const step of steps) expect(since(backAt, step, succeeded)).toBeGreaterThanOrEqual(3);
    expect(heldWhenBack.every(succeeded)).toBe(true);
    expect(healthBack).toBe(200);
    expect(halfMade).toEqual([]);
    expect(wrongOutcomes).toEqual([]);
    expect(violations).toBe(0);
    expect(shutdown).toBe('clean');
  }, 120_000);
});
