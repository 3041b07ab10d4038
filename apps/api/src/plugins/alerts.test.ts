import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { organizations, persons } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { createApp } from '../app.js';
import { loadApiConfig } from '../env.js';
import { setupTestApp } from '../testing/setup-test-app.js';

const t = setupTestApp({ ALERT_CHECK_INTERVAL_MS: '100', CONSOLE_URL: 'https://console.example.com' });

describe('alerts without SMTP (npm start)', () => {
  it('the poller sends a balance alert by itself into the dev outbox, once', async () => {
    const organizationId = randomUUID();
    const email = `outbox-${randomUUID()}@example.com`;
    await t.testDb.db.insert(organizations).values({ id: organizationId, name: 'Outbox Co' });
    await t.testDb.db.insert(persons).values({ id: randomUUID(), identityId: randomUUID(), email, organizationId });
    await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 6_000_000_000n, reference: randomUUID() }));
    await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'usage_charge', amountNanos: -2_000_000_000n, reference: randomUUID() }));

    const outbox = async () => (await t.app.inject({ method: 'GET', url: `/dev/outbox?to=${encodeURIComponent(email)}` })).json().messages as { subject: string; link: string }[];
    const deadline = Date.now() + 10_000;
    while ((await outbox()).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await outbox()).toMatchObject([{ subject: 'Your Meterway balance is below $5.00', link: 'https://console.example.com/add-credits' }]);

    // Many more rounds of the poller later, still one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await outbox()).toHaveLength(1);
  });
});

describe('mail configuration', () => {
  it('has no dev outbox when SMTP_URL is set', async () => {
    const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent', SMTP_URL: 'smtp://127.0.0.1:1', ALERT_CHECK_INTERVAL_MS: '3600000' }), db: t.testDb.handle });
    expect((await app.inject({ method: 'GET', url: '/dev/outbox' })).statusCode).toBe(404);
    await app.close();
  });


  it('refuses production without SMTP_URL, and a URL that is not smtp', () => {
    expect(() => loadApiConfig({ NODE_ENV: 'production' })).toThrow(/SMTP_URL: is required in production/);
    expect(() => loadApiConfig({ SMTP_URL: 'https://mail.example.com' })).toThrow(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(loadApiConfig({ NODE_ENV: 'production', SMTP_URL: 'smtps://user:pass@mail.example.com', SANDBOX_PAYMENTS: 'allow' }).mail.smtpUrl).toBe('smtps://user:pass@mail.example.com');
  });
});
