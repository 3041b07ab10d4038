import type { Database } from '@meterway/db';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { chatCompletions } from '../../db/schema/index.js';
import { threeHeldCalls } from '../../testing/held-calls.js';
import { createSettlements } from './settle-after-answer.js';

const t = setupTestDb({ schema, migrations });
const now = new Date('2026-11-29T12:00:00Z');

/** The test database, counting the statements sent through it. */
function counted(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  const wrapped = new Proxy(db, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'execute' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        statements++;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { db: wrapped, statements: () => statements };
}

async function settleAnsweredTogether(callsInFlight: number) {
  const { calls } = await threeHeldCalls(t.db, now, 1);
  const { db, statements } = counted(t.db);
  const settlements = createSettlements(db, () => callsInFlight);
  const settled: unknown[] = [];
  const after = { onSettled: (value: unknown) => settled.push(value), onRetry: () => {}, onError: () => {}, retryUntil: Date.now() + 60_000 };
  for (const call of calls) settlements.afterAnswer(call, after);
  await settlements.settling();
  const rows = await t.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, calls[0]!.organizationId));
  return { settlementStatements: statements(), charged: settled.filter(Boolean).length, rows: rows.length };
}

describe('settlements after the answer', () => {
  it('with many calls in flight, waits for their settlements and sends the calls answered meanwhile in one', async () => {
    expect(await settleAnsweredTogether(8)).toEqual({ settlementStatements: 1, charged: 3, rows: 3 });
  });

  it('with few in flight, settles the first answer at once, without waiting for the others', async () => {
    const { settlementStatements, ...charged } = await settleAnsweredTogether(7);
    expect(charged).toEqual({ charged: 3, rows: 3 });
    expect(settlementStatements).toBeGreaterThan(1);
  });
});
