import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrations, schema } from '../db/index.js';
import { memberships, organizations, persons } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { createApp } from '../app.js';
import { loadApiConfig } from '../env.js';

// The database only: each test builds the app it needs (the poller's under a fake interval).
const testDb = setupTestDb({ schema, migrations });
afterEach(() => {
  vi.useRealTimers();
});

describe('alerts without SMTP (npm start)', () => {
  it('the poller sends a balance alert by itself into the dev outbox, once', async () => {
    const organizationId = randomUUID();
    const email = `outbox-${randomUUID()}@example.com`;
    await testDb.db.insert(organizations).values({ id: organizationId, name: 'Outbox Co' });
    const personId = randomUUID();
    await testDb.db.insert(persons).values({ id: personId, identityId: randomUUID(), email, organizationId });
    await testDb.db.insert(memberships).values({ organizationId, personId, role: 'billing' });
    await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 6_000_000_000n, reference: randomUUID() }));
    await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'usage_charge', amountNanos: -2_000_000_000n, reference: randomUUID() }));

    // Only the poller's interval is faked: the test ticks it and waits for each round to finish.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const finished: (() => void)[] = [];
    const config = loadApiConfig({ LOG_LEVEL: 'silent', ALERT_CHECK_INTERVAL_MS: '100', CONSOLE_URL: 'https://console.example.com' });
    const app = await createApp({ config, db: testDb.handle, onAlertRound: () => finished.shift()?.() });
    const round = () =>
      new Promise<void>((resolve) => {
        finished.push(resolve);
        vi.advanceTimersByTime(100);
      });
    try {
      const outbox = async () =>
        (await app.inject({ method: 'GET', url: `/dev/outbox?to=${encodeURIComponent(email)}` })).json().messages as { subject: string; link: string }[];
      await round();
      expect(await outbox()).toMatchObject([{ subject: 'Your Meterway balance is below $5.00', link: 'https://console.example.com/add-credits' }]);

      // Many more rounds of the poller later, still one.
      for (let more = 0; more < 5; more++) await round();
      expect(await outbox()).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

describe('mail configuration', () => {
  it('has no dev outbox when SMTP_URL is set', async () => {
    const app = await createApp({
      config: loadApiConfig({ LOG_LEVEL: 'silent', SMTP_URL: 'smtp://127.0.0.1:1', ALERT_CHECK_INTERVAL_MS: '3600000' }),
      db: testDb.handle,
    });
    expect((await app.inject({ method: 'GET', url: '/dev/outbox' })).statusCode).toBe(404);
    await app.close();
  });

  it('refuses production without SMTP_URL, and a URL that is not smtp', () => {
    expect(() => loadApiConfig({ NODE_ENV: 'production' })).toThrow(/SMTP_URL: is required in production/);
    expect(() => loadApiConfig({ SMTP_URL: 'https://mail.example.com' })).toThrow(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(loadApiConfig({ NODE_ENV: 'production', SMTP_URL: 'smtps://user:pass@mail.example.com', SANDBOX_PAYMENTS: 'allow' }).mail.smtpUrl).toBe(
      'smtps://user:pass@mail.example.com',
    );
  });
});
