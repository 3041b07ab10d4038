// `npm run bench:usage --workspace bench` (DATABASE_URL required): GET /bff/usage/daily, the usage
// chart's query, over 1,000,000 chat completions of one organisation. A fresh database is made for
// the run and dropped after. As in bench/api, a fixed session stands in for identity; the person
// lookup every request makes still runs.
import { createTestDb } from '@meterway/db/testing';
import { sql } from 'drizzle-orm';
import { createApp } from '../../apps/api/src/app.js';
import { migrations, schema } from '../../apps/api/src/db/index.js';
import { getUsageDaily } from '../../apps/api/src/domain/usage/usage-daily.js';
import { loadApiConfig } from '../../apps/api/src/env.js';
import type { IdentitySessions } from '../../apps/api/src/plugins/identity-sessions.js';
import { seedChatCompletions } from './seed-chat-completions.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('Set DATABASE_URL to a Postgres server, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  process.exit(1);
}
const rowCount = 1_000_000;
const samples = 300;
const identityId = '00000000-0000-4000-8000-000000000001';

const sessions: IdentitySessions = {
  whoami: async () => ({ outcome: 'session', session: { identityId, email: 'bench-1@example.com', verified: true } }),
  cacheSize: () => 0,
};

const db = await createTestDb({ schema, migrations, databaseUrl });
const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl }), db, sessions });
try {
  let started = performance.now();
  // Four keys, three models, over the last 90 days.
  const seeded = await seedChatCompletions(db.databaseUrl!, {
    rows: rowCount,
    keys: 4,
    models: ['gpt-4o-mini', 'gpt-4o', 'meterway-demo'],
    days: 90,
    identityId,
  });
  const [counts] = (
    (await db.db.execute(
      sql`select (select count(*) from app.chat_completions)::int as total, (select count(*) from app.usage_daily)::int as daily`,
    )) as unknown as {
      rows: { total: number; daily: number }[];
    }
  ).rows;
  console.log(
    `seeded ${counts!.total.toLocaleString('en')} chat completions (${counts!.daily.toLocaleString('en')} usage_daily rows) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { cookie: 'bench=1' } });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    return (await response.json()) as { totals?: { calls: number } };
  };
  const time = async (name: string, run: () => Promise<{ totals?: { calls: number } }>) => {
    for (let i = 0; i < 20; i++) await run(); // warm-up
    const durations: number[] = [];
    let calls: number | undefined;
    for (let i = 0; i < samples; i++) {
      started = performance.now();
      calls = (await run()).totals?.calls;
      durations.push(performance.now() - started);
    }
    durations.sort((x, y) => x - y);
    const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]!.toFixed(1);
    const what = calls === undefined ? '' : `  (${calls.toLocaleString('en')} calls; target p95 ≤ 50 ms)`;
    console.log(`${name.padEnd(40)} n=${samples}  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms${what}`);
  };
  const measure = (name: string, path: string) => time(name, () => get(path));

  // The floor: a route with the same session and person lookup and one small query.
  await measure('GET /bff/me (floor)', '/bff/me');
  await measure('30 days, all keys', '/bff/usage/daily');
  await measure('30 days, one key', `/bff/usage/daily?publishableKeyId=${seeded.publishableKeyIds[0]}`);
  await measure('90 days, all keys', '/bff/usage/daily?days=90');
  // The domain function alone: the query and the shaping, without HTTP, session or person lookup.
  const viewer = {
    personId: '',
    identityId,
    email: '',
    organizationId: seeded.organizationId,
    organizationName: '',
    role: 'owner' as const,
    systemAdmin: false,
  };
  await time('getUsageDaily, 30 days, all keys', () => getUsageDaily(db.db, viewer, { days: 30 }, new Date()));
  await time('getUsageDaily, 30 days, one key', () => getUsageDaily(db.db, viewer, { days: 30, publishableKeyId: seeded.publishableKeyIds[0] }, new Date()));

  // The plan of the all-keys read (by model and by key in one pass: grouping sets). On this
  // one-organisation table Postgres rightly scans all of usage_daily's ~1,000 rows; with sequential
  // scans off it shows the path a table of many organisations takes: a range of the primary key
  // (organisation, day), nothing of chat_completions.
  const plan = await db.db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    return (await tx.execute(sql`explain (analyze, costs off, timing off, summary off)
      select sums.*, k.name, k.deleted_at from (
        select day, model, publishable_key_id, sum(calls), sum(input_tokens), sum(output_tokens), sum(cost_nanos) from app.usage_daily
        where organization_id = ${seeded.organizationId} and day between current_date - 60 and current_date
        group by grouping sets ((day, model), (day, publishable_key_id))) as sums
      left join app.publishable_keys k on k.id = sums.publishable_key_id`)) as unknown as {
      rows: { 'QUERY PLAN': string }[];
    };
  });
  console.log(plan.rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n'));
} finally {
  await app.close();
  await db.close();
}
