import { type PgBouncer, pgBouncerInstalled, startPgBouncer } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, keySpend } from '../db/schema/index.js';
import { setupGateway } from '../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { demoModelId } from './providers/demo-model.js';

// Issue #25: the api behind PgBouncer in transaction mode, which hands each transaction whichever
// server connection is free: nothing it runs may rely on a session (a named prepared statement, a
// session lock, a SET). Two server connections for the app's ten clients, so calls at once share them.
describe.skipIf(!process.env.DATABASE_URL || !pgBouncerInstalled())(
  'the gateway through PgBouncer in transaction mode (DATABASE_URL set, pgbouncer installed)',
  () => {
    let bouncer: PgBouncer;
    beforeAll(async () => {
      bouncer = await startPgBouncer(process.env.DATABASE_URL!, 2);
    });
    afterAll(async () => {
      await bouncer?.close();
    });
    const t = setupGateway(undefined, {}, (databaseUrl) => bouncer.through(databaseUrl));

    it('migrates through it, and meters calls made at once with several keys: each key looked up, admitted, answered and charged', async () => {
      const accounts = await Promise.all([1, 2, 3, 4, 5, 6].map(() => t.account({ creditDollars: 5, budgetDollars: 5 })));
      const callsPerKey = 4;
      const answers = await Promise.all(
        accounts.flatMap((account) => {
          const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
          return Array.from({ length: callsPerKey }, (_, index) =>
            client.chat.completions.create({ model: demoModelId, messages: [{ role: 'user', content: `Call ${index}` }], max_tokens: 16 }),
          );
        }),
      );
      expect(answers.every((answer) => answer.choices[0]?.message.content)).toBe(true);

      await t.settled();
      for (const account of accounts) {
        const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
        expect(rows).toHaveLength(callsPerKey);
        const [spend] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, account.keyId));
        expect(spend?.reservedNanos).toBe(0n);
        expect(spend?.spentNanos).toBe(rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n));
      }
      await expectLedgerConsistent(t.testDb.db);
    });
  },
);
