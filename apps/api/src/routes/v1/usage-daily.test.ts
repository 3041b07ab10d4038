import type { AddressInfo } from 'node:net';
import { createDb } from '@meterway/db';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../app.js';
import { schema } from '../../db/index.js';
import { loadApiConfig } from '../../env.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { atRest, setupGateway } from '../../testing/gateway-fixture.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
const provider = () => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 10_000, idleTimeoutMs: 5_000 });
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
const t = setupGateway(provider);

// On Postgres a second api instance shares the database, so two processes' batches interleave.
let second: { url: string; settled: () => Promise<void>; close: () => Promise<void> } | undefined;
beforeAll(async () => {
  const databaseUrl = t.testDb.handle.databaseUrl;
  if (!databaseUrl) return;
  const db = await createDb({ schema, databaseUrl, dataDir: '', service: 'api' });
  const app: FastifyInstance = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent' }), db, models: provider() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  second = {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    settled: () => atRest(app),
    close: async () => (await app.close(), await db.close()),
  };
});
afterAll(async () => {
  await second?.close();
  await upstream?.close();
});

const models = ['gpt-4o-mini', 'gpt-4o', 'meterway-demo'];

describe(`usage_daily after 240 parallel gateway calls${process.env.DATABASE_URL ? ' on two api instances sharing one Postgres' : ''}`, () => {
  it('equals a GROUP BY over chat_completions, call for call and nano-dollar for nano-dollar', async () => {
    const accounts = await Promise.all([1, 2].map(() => t.account({ creditDollars: 100, budgetDollars: 100 })));
    const urls = [t.url, second?.url ?? t.url];
    const statuses = await Promise.all(
      Array.from({ length: 240 }, (_, i) =>
        fetch(`${urls[i % urls.length]}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${accounts[i % 2]!.value}`, origin: 'https://app.example.com', 'content-type': 'application/json' },
          body: JSON.stringify({ model: models[i % 3], messages: [{ role: 'user', content: 'Count.' }], max_tokens: 1 + (i % 8) }),
        }).then((response) => response.status),
      ),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await Promise.all([t.settled(), second?.settled()]);

    type Rows = { rows: Record<string, string>[] };
    const grouped = (await t.testDb.db.execute(sql`
      select organization_id::text, (created_at at time zone 'UTC')::date::text as day, publishable_key_id::text, model,
        count(*)::text as calls, sum(input_tokens)::text as input_tokens, sum(output_tokens)::text as output_tokens,
        coalesce(sum(total_cost_nanos), 0)::text as cost_nanos
      from app.chat_completions group by 1, 2, 3, 4 order by 1, 2, 3, 4`)) as unknown as Rows;
    const kept = (await t.testDb.db.execute(sql`
      select organization_id::text, day::text, publishable_key_id::text, model,
        calls::text, input_tokens::text, output_tokens::text, cost_nanos::text
      from app.usage_daily order by 1, 2, 3, 4`)) as unknown as Rows;
    expect(grouped.rows.reduce((sum, row) => sum + Number(row.calls), 0)).toBe(240);
    expect(grouped.rows.length).toBeGreaterThanOrEqual(6);
    expect(kept.rows).toEqual(grouped.rows);
  });
});
