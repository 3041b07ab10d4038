// `npm run bench:api --workspace bench` (DATABASE_URL required): the usage list with 1,000,000
// chat completions in one organisation. A fresh database is made for the run and dropped after.
// Identity is replaced by a fixed session (this measures the api and its queries, not whoami,
// which bench/identity-latency.ts measures); the per-request person lookup still runs.
import { createTestDb } from '@meterway/db/testing';
import { sql } from 'drizzle-orm';
import { createApp } from '../../apps/api/src/app.js';
import { migrations, schema } from '../../apps/api/src/db/index.js';
import { loadApiConfig } from '../../apps/api/src/env.js';
import type { IdentitySessions } from '../../apps/api/src/plugins/identity-sessions.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('Set DATABASE_URL to a Postgres server, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  process.exit(1);
}
const rowCount = 1_000_000;
const samples = 300;

const sessions: IdentitySessions = {
  whoami: async () => ({ outcome: 'session', session: { identityId: '00000000-0000-4000-8000-000000000001', email: 'bench@example.com', verified: true } }),
  cacheSize: () => 0,
};

const db = await createTestDb({ schema, migrations, databaseUrl });
const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl }), db, sessions });
try {
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const headers = { cookie: 'bench=1' };
  const get = async (query: string) => {
    const response = await fetch(`${base}/bff/chat-completions${query}`, { headers });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    return (await response.json()) as { items: unknown[]; pagination: { nextPageToken: string | null } };
  };

  // The first request provisions the person and the organisation the rows belong to.
  const me = (await (await fetch(`${base}/bff/me`, { headers })).json()) as { organizationId: string };
  const keys = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2'];
  for (const [i, id] of keys.entries()) {
    await db.db.execute(sql`insert into app.publishable_keys (id, organization_id, name, value, spend_limit_nanos, allowed_origins)
      values (${id}, ${me.organizationId}, ${`Bench ${i}`}, ${`pk_live_bench${i}`}, 10000000000, '[]'::jsonb)`);
  }
  let started = performance.now();
  // Three calls to a millisecond-rounded second, random-looking ids: ties the id must break.
  await db.db.execute(sql`insert into app.chat_completions (id, organization_id, publishable_key_id, created_at, model,
      estimated_input_tokens, input_tokens, estimated_input_cost_nanos, input_cost_nanos, output_tokens, output_cost_nanos, total_cost_nanos)
    select 'chatcmpl-' || substr(md5(g::text), 1, 24), ${me.organizationId}::uuid,
      (case when g % 4 = 0 then ${keys[1]} else ${keys[0]} end)::uuid,
      timestamptz '2026-01-01T00:00:00Z' + (g / 3) * interval '1 second', 'demo-small',
      100 + g % 50, 100 + g % 50, 1500 * (g % 50), 1500 * (g % 50), 200, 400000, case when g % 1000 = 0 then null else 401500 end
    from generate_series(1, ${rowCount}) as g`);
  await db.db.execute(sql`analyze app.chat_completions`);
  console.log(`inserted ${rowCount.toLocaleString('en')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const measure = async (name: string, query: string) => {
    for (let i = 0; i < 20; i++) await get(query); // warm-up
    const durations: number[] = [];
    for (let i = 0; i < samples; i++) {
      started = performance.now();
      const page = await get(query);
      durations.push(performance.now() - started);
      if (page.items.length !== 100) throw new Error(`${name}: ${page.items.length} items`);
    }
    durations.sort((x, y) => x - y);
    const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]!.toFixed(1);
    console.log(`${name.padEnd(34)} n=${samples}  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms  (target p95 ≤ 15 ms)`);
  };
  /** The query string of the page `pages` next-steps in from the first. */
  const deep = async (query: string, pages: number) => {
    let token: string | null = null;
    for (let i = 0; i < pages; i++) token = (await get(`${query}${token ? `&nextPageToken=${encodeURIComponent(token)}` : ''}`)).pagination.nextPageToken;
    return `${query}&nextPageToken=${encodeURIComponent(token!)}`;
  };

  await measure('first page, newest first', '?limit=100');
  await measure('page 51, newest first', await deep('?limit=100', 50));
  await measure('first page, oldest first', '?limit=100&asc=true');
  await measure('page 51, oldest first', await deep('?limit=100&asc=true', 50));
  await measure('page 51, one key (¼ of the rows)', await deep(`?limit=100&publishableKeyId=${keys[1]}`, 50));

  // The plan of the deep page as keysetPage builds it: an index range scan from the cursor.
  const plan = (await db.db.execute(sql`explain (analyze, costs off, timing off, summary off)
    select * from app.chat_completions where organization_id = ${me.organizationId}
      and (created_at, id) < (timestamptz '2026-01-02T00:00:00Z', 'chatcmpl-8') order by created_at desc, id desc limit 101`)) as unknown as {
    rows: { 'QUERY PLAN': string }[];
  };
  console.log(plan.rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n'));
} finally {
  await app.close();
  await db.close();
}
