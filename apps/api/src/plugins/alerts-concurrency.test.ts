import { randomUUID } from 'node:crypto';
import { smtpMailer } from '@meterway/service';
import { startMailCatcher, subjectOf } from '@meterway/service/mail-catcher';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertDeliveries, keySpend, memberships, persons } from '../db/schema/index.js';
import { openAiCompatible } from '../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { type SecondInstance, startSecondInstance } from '../testing/second-instance.js';
import { atRest, setupGateway } from '../testing/gateway-fixture.js';
import { saveAlertSettings } from '../domain/alerts/alert-settings.js';
import { checkAlerts } from '../domain/alerts/check-alerts.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let mail: Awaited<ReturnType<typeof startMailCatcher>>;
// Both instances poll every 100 ms and send through one real SMTP server.
const env: NodeJS.ProcessEnv = { ALERT_CHECK_INTERVAL_MS: '100' };
beforeAll(async () => {
  upstream = await startFakeUpstream();
  mail = await startMailCatcher();
  env.SMTP_URL = mail.url;
});
const provider = () => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 10_000, idleTimeoutMs: 5_000 });
const t = setupGateway(provider, env);

let second: SecondInstance;
beforeAll(async () => {
  second = await startSecondInstance(t.testDb.handle, env, provider());
});
afterAll(async () => {
  await second?.close();
  await upstream?.close();
  await mail?.close();
});

const call = (url: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, origin: 'https://app.example.com', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count to eight.' }], max_tokens: 8 }),
  }).then((response) => response.status);

describe(`alerts under concurrent usage on two api instances${process.env.DATABASE_URL ? ' sharing one Postgres' : ''}`, () => {
  it('sends exactly one mail per crossed threshold', async () => {
    // $1 of credit alerting below $0.9999, a key with a $0.0002 budget alerting at 10, 50, 80 and 100 %:
    // each call costs about $0.000006, so usage crosses them one after another.
    const account = await t.account({ creditDollars: 1, budgetDollars: 0.0002 });
    const email = `concurrent-${randomUUID()}@example.com`;
    const personId = randomUUID();
    await t.testDb.db.insert(persons).values({ id: personId, identityId: randomUUID(), email, organizationId: account.organizationId });
    await t.testDb.db.insert(memberships).values({ organizationId: account.organizationId, personId, role: 'owner' });
    await saveAlertSettings(
      t.testDb.db,
      { organizationId: account.organizationId, personId: null, email: 'system' },
      { lowBalance: 0.9999, keyBudgetPercents: [10, 50, 80, 100] },
      new Date(),
    );

    let using = true;
    const checkers = [t.testDb.db, second.db].map(async (db) => {
      const deps = { db, mailer: smtpMailer(mail.url, 'alerts@example.com'), consoleUrl: 'https://console.example.com' };
      let rounds = 0;
      while (using || rounds < 5) {
        await checkAlerts(deps, new Date());
        rounds++;
        // PGlite answers without leaving the microtask queue: let the HTTP calls in between.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return rounds;
    });
    const statuses: number[] = [];
    for (let wave = 0; wave < 8; wave++) {
      statuses.push(...(await Promise.all(Array.from({ length: 8 }, (_, i) => call(i % 2 ? second.url : t.url, account.value)))));
    }
    // Settlement follows each answer: the last calls' spend is in before the checkers' last rounds.
    await Promise.all([t.settled(), atRest(second.app)]);
    using = false;
    const rounds = await Promise.all(checkers);
    expect(Math.min(...rounds)).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(20);

    const [spend] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, account.keyId));
    const spent = spend?.spentNanos ?? 0n;
    const crossed = [10, 50, 80, 100].filter((percent) => spent * 100n >= 200_000n * BigInt(percent));
    expect(crossed.length).toBeGreaterThanOrEqual(3);
    const expected = [
      'Your Meterway balance is below $1.00',
      ...crossed.map((percent) =>
        percent === 100 ? 'Key "Test key" used its whole monthly budget' : `Key "Test key" reached ${percent}% of its monthly budget`,
      ),
    ];
    // The instances' own pollers check too: one may still be sending an alert it claimed.
    const deliveriesOf = () => t.testDb.db.select().from(alertDeliveries).where(eq(alertDeliveries.organizationId, account.organizationId));
    let deliveries = await deliveriesOf();
    for (let waited = 0; waited < 5_000 && deliveries.some((delivery) => delivery.sentAt === null); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      deliveries = await deliveriesOf();
    }
    expect(deliveries).toHaveLength(expected.length);
    expect(deliveries.every((delivery) => delivery.sentAt !== null && delivery.attempts === 1)).toBe(true);
    expect(mail.mailsTo(email).map(subjectOf).sort()).toEqual(expected.sort());
  });
});
