import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { organizations, publishableKeys, reservations } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { newKeyValue } from '../domain/keys/key-value.js';
import type { Metered } from '../domain/metering/settlement.js';
import { dollarsToNanos, periodStart } from '../domain/money.js';

/**
 * Three calls of a new key, each with its hold as admission leaves it, and what each is charged
 * once answered (8 input and 16 output tokens of gpt-4o-mini). With `credit`, the organisation
 * has that many dollars topped up.
 */
export async function threeHeldCalls(db: Database, now: Date, credit = 0): Promise<{ organizationId: string; calls: Metered[] }> {
  const organizationId = randomUUID();
  const keyId = randomUUID();
  await db.insert(organizations).values({ id: organizationId, name: 'Held calls' });
  if (credit > 0) {
    await db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(credit), reference: `cs_${randomUUID()}` }));
  }
  await db.insert(publishableKeys).values({
    id: keyId,
    organizationId,
    name: 'Web',
    value: newKeyValue(),
    spendLimitNanos: dollarsToNanos(10),
    allowedOrigins: ['https://app.example.com'],
  });
  const calls = Array.from({ length: 3 }, (): Metered => ({
    reservationId: randomUUID(),
    organizationId,
    publishableKeyId: keyId,
    periodStart: periodStart(now),
    completionId: `chatcmpl-${randomUUID()}`,
    model: 'gpt-4o-mini',
    estimatedInputTokens: 8,
    inputTokens: 8,
    cachedInputTokens: 0,
    outputTokens: 16,
    usageEstimated: true,
    prices: { inputNanosPerToken: 150n, cachedInputNanosPerToken: 75n, outputNanosPerToken: 600n },
    priceVersion: 'test',
    provider: 'openai',
    caller: { client: '203.0.113.9', endUser: null },
    now,
  }));
  await db.insert(reservations).values(
    calls.map((call) => ({
      id: call.reservationId,
      organizationId,
      publishableKeyId: keyId,
      periodStart: call.periodStart,
      amountNanos: 10_800n,
      expiresAt: new Date(now.getTime() + 600_000),
    })),
  );
  return { organizationId, calls };
}
