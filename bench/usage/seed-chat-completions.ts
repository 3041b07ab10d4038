// Fills a migrated api database (e.g. createTestDb's `databaseUrl`) with chat completions for the
// usage benches. Rows go through app.chat_completions itself, so its statement trigger keeps
// app.usage_daily as the gateway's inserts do.
import { randomBytes, randomUUID } from 'node:crypto';
import { createDb } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { schema } from '../../apps/api/src/db/index.js';

export type SeedOptions = {
  rows: number;
  /** Organisations the rows are spread over, round-robin (default 1); the first is returned. */
  organizations?: number;
  /** Keys per organisation (default 2); an organisation's rows alternate between its keys. */
  keys?: number;
  /** Models each key's rows cycle through (default two); each costs more than the one before. */
  models?: string[];
  /** The rows are spread evenly over the last `days` UTC days up to now, today included (default 30). */
  days?: number;
  /** The identity of the first organisation's person, so a fixed bench session signs in as it. */
  identityId?: string;
};

const rowsPerStatement = 100_000;

export async function seedChatCompletions(databaseUrl: string, options: SeedOptions): Promise<{ organizationId: string; publishableKeyIds: string[] }> {
  const organizationCount = options.organizations ?? 1;
  const keyCount = options.keys ?? 2;
  const models = options.models ?? ['demo-small', 'demo-large'];
  const days = options.days ?? 30;
  const handle = await createDb({ schema, databaseUrl, dataDir: '', service: 'bench', poolSize: 1 });
  try {
    const db = handle.db;
    const organizationIds = Array.from({ length: organizationCount }, () => randomUUID());
    // Organisation-major: organisation o's keys are keyIds[o * keyCount … (o + 1) * keyCount - 1].
    const keyIds = organizationIds.flatMap(() => Array.from({ length: keyCount }, () => randomUUID()));
    for (const [o, organizationId] of organizationIds.entries()) {
      await db.execute(sql`insert into app.organizations (id, name) values (${organizationId}, ${`Bench organisation ${o + 1}`})`);
      const personId = randomUUID();
      await db.execute(sql`insert into app.persons (id, identity_id, email, organization_id)
        values (${personId}, ${o === 0 && options.identityId ? options.identityId : randomUUID()}, ${`bench-${o + 1}@example.com`}, ${organizationId})`);
      // Without a membership the api takes the person for a former member and moves them to an organisation of their own.
      await db.execute(sql`insert into app.memberships (organization_id, person_id, role) values (${organizationId}, ${personId}, 'owner')`);
      for (let k = 0; k < keyCount; k++) {
        await db.execute(sql`insert into app.publishable_keys (id, organization_id, name, value, spend_limit_nanos, allowed_origins)
          values (${keyIds[o * keyCount + k]}, ${organizationId}, ${`Bench key ${k + 1}`}, ${`pk_live_bench_${randomBytes(12).toString('hex')}`},
            100000000000, '[]'::jsonb)`);
      }
    }

    // Row g lands `g / rows` of the window before now, oldest first; unique ids per run.
    const run = randomBytes(4).toString('hex');
    const windowMs = (days - 1) * 86_400_000 + (Date.now() % 86_400_000);
    for (let first = 1; first <= options.rows; first += rowsPerStatement) {
      const last = Math.min(options.rows, first + rowsPerStatement - 1);
      await db.execute(sql`insert into app.chat_completions (id, organization_id, publishable_key_id, created_at, model,
          estimated_input_tokens, input_tokens, estimated_input_cost_nanos, input_cost_nanos, output_tokens, output_cost_nanos, total_cost_nanos)
        select ${`chatcmpl-bench${run}-`} || g, o.id, k.id,
          now() - (${windowMs}::bigint * (${options.rows} - g) / ${options.rows}) * interval '1 millisecond', m.name,
          t.input, t.input, t.input * 150 * m.tier, t.input * 150 * m.tier, t.output, t.output * 600 * m.tier, (t.input * 150 + t.output * 600) * m.tier
        from generate_series(${first}::bigint, ${last}::bigint) as g
        cross join lateral (select (${sql.param(organizationIds)}::uuid[])[g % ${organizationCount} + 1] as id) as o
        cross join lateral (select (${sql.param(keyIds)}::uuid[])[(g % ${organizationCount}) * ${keyCount} + (g / ${organizationCount}) % ${keyCount} + 1] as id) as k
        cross join lateral (select (${sql.param(models)}::text[])[(g / ${organizationCount * keyCount}) % ${models.length} + 1] as name,
          (g / ${organizationCount * keyCount}) % ${models.length} + 1 as tier) as m
        cross join lateral (select 50 + g % 200 as input, 20 + g % 300 as output) as t`);
    }
    await db.execute(sql`analyze app.chat_completions`);
    await db.execute(sql`analyze app.usage_daily`);
    return { organizationId: organizationIds[0]!, publishableKeyIds: keyIds.slice(0, keyCount) };
  } finally {
    await handle.close();
  }
}
