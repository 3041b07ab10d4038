import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database } from '@meterway/db';
import { createTestDb, setupTestDb } from '@meterway/db/testing';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations, schema } from './index.js';

type Db = Database<typeof schema>;

const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** How many functions of that name the `app` schema holds: one per name, or a call may be ambiguous. */
async function overloads(db: Db, name: string): Promise<number> {
  const [row] = rows<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from pg_proc p join pg_namespace s on s.oid = p.pronamespace
      where s.nspname = 'app' and p.proname = ${name}`),
  );
  return row?.n ?? 0;
}

async function expectOneOfEach(db: Db) {
  expect(await overloads(db, 'admit_calls')).toBe(1);
  expect(await overloads(db, 'settle_calls')).toBe(1);
  expect(await overloads(db, 'add_to_usage_daily')).toBe(1);
  expect(await overloads(db, 'release_holds')).toBe(1);
  expect(await overloads(db, 'record_forwarded')).toBe(1);
  expect(await overloads(db, 'delete_holds')).toBe(1);
  expect(await overloads(db, 'reserve_calls')).toBe(0);
}

/** An organisation with a credit of 10000 and a key with a budget of 5000. */
async function anOrganisationWithAKey(db: Db) {
  const organization = randomUUID();
  const key = randomUUID();
  const keyValue = `pk_test_${randomUUID()}`;
  const origins = JSON.stringify(['https://app.example']);
  const period = `${new Date().toISOString().slice(0, 7)}-01`;
  await db.execute(sql`insert into app.organizations (id, name) values (${organization}, 'functions test')`);
  await db.execute(sql`insert into app.credit_balances (organization_id, balance_nanos) values (${organization}, 10000)`);
  await db.execute(sql`insert into app.publishable_keys (id, organization_id, name, value, spend_limit_nanos, allowed_origins)
    values (${key}, ${organization}, 'test', ${keyValue}, 5000, ${origins}::jsonb)`);
  return { organization, key, keyValue, period };
}

/** A call as app.settle_calls takes it (its `ord` in the batch, from 1), with what the provider reported and its costs. */
function settlementRow(
  ord: number,
  reservation: string,
  completion: string,
  used: { inputTokens: number; inputCost: number; outputTokens: number; outputCost: number },
) {
  return {
    ord,
    reservation_id: reservation,
    completion_id: completion,
    created_at: new Date().toISOString(),
    model: 'test-model',
    estimated_input_tokens: 10,
    input_tokens: used.inputTokens,
    cached_input_tokens: 0,
    estimated_input_cost_nanos: 100,
    input_cost_nanos: used.inputCost,
    output_tokens: used.outputTokens,
    output_cost_nanos: used.outputCost,
    total_cost_nanos: used.inputCost + used.outputCost,
    usage_estimated: false,
    price_version: 'test',
  };
}

/**
 * One call through the money functions as the gateway makes it: admitted with a hold of 1000,
 * settled at the 1500 its provider reported. What each table says afterwards.
 */
async function chargeOneCall(db: Db) {
  const { organization, key, keyValue, period } = await anOrganisationWithAKey(db);
  const reservation = randomUUID();
  const completion = `chatcmpl-${randomUUID()}`;
  await db.execute(sql`select app.admit_calls(${organization}, ${key}, ${keyValue}, 0, now(), ${period}::date,
    ${`{${reservation}}`}::uuid[], '{1000}'::bigint[], now() + interval '10 minutes')`);
  const [held] = rows<{ reserved: number }>(
    await db.execute(sql`select reserved_nanos::int as reserved from app.credit_balances where organization_id = ${organization}`),
  );

  const calls = JSON.stringify([settlementRow(1, reservation, completion, { inputTokens: 12, inputCost: 120, outputTokens: 20, outputCost: 1380 })]);
  const settled = rows<{ completion_id: string; over_hold: number; unpaid: number }>(
    await db.execute(sql`select completion_id, over_hold_nanos::int as over_hold, unpaid_nanos::int as unpaid
      from app.settle_calls(${organization}, ${key}, ${period}::date, ${calls}::jsonb, now())`),
  );
  const [credit] = rows<{ balance: number; reserved: number }>(
    await db.execute(
      sql`select balance_nanos::int as balance, reserved_nanos::int as reserved from app.credit_balances where organization_id = ${organization}`,
    ),
  );
  const [spend] = rows<{ spent: number; reserved: number }>(
    await db.execute(
      sql`select spent_nanos::int as spent, reserved_nanos::int as reserved from app.key_spend where organization_id = ${organization} and publishable_key_id = ${key}`,
    ),
  );
  const ledger = rows<{ amount: number }>(
    await db.execute(sql`select amount_nanos::int as amount from app.credit_entries where organization_id = ${organization}`),
  );
  const usage = rows<{ calls: number; cost: number }>(
    await db.execute(sql`select calls::int as calls, cost_nanos::int as cost from app.usage_daily where organization_id = ${organization}`),
  );
  return { completion, held: held?.reserved, settled, credit, spend, ledger, usage };
}

/** What a call of 1500 against a hold of 1000 and a credit of 10000 leaves behind. */
async function expectChargedInFull(db: Db) {
  const outcome = await chargeOneCall(db);
  expect(outcome.held).toBe(1000);
  expect(outcome.settled).toEqual([{ completion_id: outcome.completion, over_hold: 500, unpaid: 0 }]);
  expect(outcome.credit).toEqual({ balance: 8500, reserved: 0 });
  expect(outcome.spend).toEqual({ spent: 1500, reserved: 0 });
  expect(outcome.ledger).toEqual([{ amount: -1500 }]);
  // The trigger adds each completion to usage_daily once.
  expect(outcome.usage).toEqual([{ calls: 1, cost: 1500 }]);
}

describe('the api database functions (db/functions)', () => {
  const testDb = setupTestDb({ schema, migrations });

  it('are there after a fresh migrate, once each, and meter a call', async () => {
    await expectOneOfEach(testDb.db);
    await expectChargedInFull(testDb.db);
  });

  it('charge the calls of a key settled together in one ledger entry, which each completion it charged names', async () => {
    const db = testDb.db;
    const { organization, key, keyValue, period } = await anOrganisationWithAKey(db);
    const reservations = [randomUUID(), randomUUID(), randomUUID()];
    await db.execute(sql`select app.admit_calls(${organization}, ${key}, ${keyValue}, 0, now(), ${period}::date,
      ${`{${reservations.join(',')}}`}::uuid[], '{1000,1000,1000}'::bigint[], now() + interval '10 minutes')`);
    const used = [
      { inputTokens: 10, inputCost: 100, outputTokens: 1, outputCost: 600 },
      { inputTokens: 10, inputCost: 0, outputTokens: 0, outputCost: 0 },
      { inputTokens: 10, inputCost: 100, outputTokens: 1, outputCost: 800 },
    ];
    const calls = reservations.map((reservation, index) => settlementRow(index + 1, reservation, `chatcmpl-${index}-${randomUUID()}`, used[index]!));
    await db.execute(sql`select * from app.settle_calls(${organization}, ${key}, ${period}::date, ${JSON.stringify(calls)}::jsonb, now())`);

    const entries = rows<{ id: string; amount: number; balanceAfter: number; reference: string }>(
      await db.execute(sql`select id, amount_nanos::int as amount, balance_after_nanos::int as "balanceAfter", reference
        from app.credit_entries where organization_id = ${organization} and kind = 'usage_charge'`),
    );
    expect(entries).toEqual([{ id: expect.any(String), amount: -1600, balanceAfter: 8400, reference: calls[0]!.completion_id }]);
    const named = rows<{ id: string; charge: string | null }>(
      await db.execute(sql`select id, usage_charge_id as charge from app.chat_completions where organization_id = ${organization} order by id`),
    );
    // The call that cost nothing was charged nothing: it names no entry.
    expect(named).toEqual([
      { id: calls[0]!.completion_id, charge: entries[0]!.id },
      { id: calls[1]!.completion_id, charge: null },
      { id: calls[2]!.completion_id, charge: entries[0]!.id },
    ]);
  });

  it('make what the credit cannot pay owed, in the charge that names it: over a hold, and after a take-back emptied the balance', async () => {
    const db = testDb.db;
    const { organization, key, keyValue, period } = await anOrganisationWithAKey(db);
    const reservations = [randomUUID(), randomUUID()];
    await db.execute(sql`select app.admit_calls(${organization}, ${key}, ${keyValue}, 0, now(), ${period}::date,
      ${`{${reservations.join(',')}}`}::uuid[], '{1000,1000}'::bigint[], now() + interval '10 minutes')`);
    // A refund took all but 300 of the credit back while both calls were in flight.
    await db.execute(sql`update app.credit_balances set balance_nanos = 300 where organization_id = ${organization}`);
    const settle = async (ord: number, cost: number) => {
      const call = settlementRow(ord, reservations[ord - 1]!, `chatcmpl-${ord}-${randomUUID()}`, {
        inputTokens: 10,
        inputCost: 100,
        outputTokens: 1,
        outputCost: cost - 100,
      });
      const [settled] = rows<{ unpaid: number }>(
        await db.execute(
          sql`select unpaid_nanos::int as unpaid from app.settle_calls(${organization}, ${key}, ${period}::date, ${JSON.stringify([call])}::jsonb, now())`,
        ),
      );
      return { completion: call.completion_id, unpaid: settled?.unpaid };
    };
    const credit = async () =>
      rows<{ balance: number; owed: number }>(
        await db.execute(sql`select balance_nanos::int as balance, owed_nanos::int as owed from app.credit_balances where organization_id = ${organization}`),
      )[0];

    // Over its hold: 1500 against 300 of credit, 1200 owed.
    const first = await settle(1, 1500);
    expect(first.unpaid).toBe(1200);
    expect(await credit()).toEqual({ balance: 0, owed: 1200 });
    // Within its hold, but the credit is gone: all of it owed, in an entry that moves no credit.
    const second = await settle(2, 400);
    expect(second.unpaid).toBe(400);
    expect(await credit()).toEqual({ balance: 0, owed: 1600 });

    const entries = rows<{ id: string; amount: number; owed: number; balanceAfter: number }>(
      await db.execute(sql`select id, amount_nanos::int as amount, owed_nanos::int as owed, balance_after_nanos::int as "balanceAfter"
        from app.credit_entries where organization_id = ${organization} and kind = 'usage_charge' order by amount_nanos`),
    );
    expect(entries.map(({ amount, owed, balanceAfter }) => ({ amount, owed, balanceAfter }))).toEqual([
      { amount: -300, owed: 1200, balanceAfter: 0 },
      { amount: 0, owed: 400, balanceAfter: 0 },
    ]);
    const named = rows<{ id: string; charge: string; unpaid: number }>(
      await db.execute(
        sql`select id, usage_charge_id as charge, unpaid_nanos::int as unpaid from app.chat_completions where organization_id = ${organization}`,
      ),
    );
    expect(named).toEqual(
      expect.arrayContaining([
        { id: first.completion, charge: entries[0]!.id, unpaid: 1200 },
        { id: second.completion, charge: entries[1]!.id, unpaid: 400 },
      ]),
    );
  });

  it('are re-applied by every migrate without doubling', async () => {
    await testDb.handle.migrate(migrations);
    await testDb.handle.migrate(migrations);
    await expectOneOfEach(testDb.db);
    await expectChargedInFull(testDb.db);
  });
});

// The signatures the previous migrations left (0001 to 0007 defined the functions themselves),
// with bodies that fail: after a migrate, none of them may be what runs.
const previousBody = `LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'a previous definition ran'; END $$`;
const previous = {
  reserveCalls: `CREATE FUNCTION "app"."reserve_calls"(p_organization_id uuid, p_key_id uuid, p_period_start date,
    p_spend_limit_nanos bigint, p_reservation_ids uuid[], p_amounts bigint[], p_expires_at timestamptz) RETURNS void ${previousBody}`,
  admitCallsOf0005: `CREATE FUNCTION "app"."admit_calls"(p_key_id uuid, p_key_value text, p_allowed_origins jsonb, p_now timestamptz,
    p_period_start date, p_reservation_ids uuid[], p_amounts bigint[], p_expires_at timestamptz) RETURNS void ${previousBody}`,
  admitCallsOf0006: `CREATE FUNCTION "app"."admit_calls"(p_key_id uuid, p_key_value text, p_allowed_origins jsonb, p_now timestamptz,
    p_period_start date, p_reservation_ids uuid[], p_amounts bigint[], p_expires_at timestamptz, p_keep_free bigint DEFAULT 0)
    RETURNS void ${previousBody}`,
  settleCallsReturningIds: `CREATE FUNCTION "app"."settle_calls"(p_organization_id uuid, p_key_id uuid, p_period_start date, p_calls jsonb)
    RETURNS SETOF text ${previousBody}`,
  settleCallsOf0007: `CREATE FUNCTION "app"."settle_calls"(p_organization_id uuid, p_key_id uuid, p_period_start date, p_calls jsonb)
    RETURNS TABLE (completion_id text, over_hold_nanos bigint, unpaid_nanos bigint) ${previousBody}`,
  addToUsageDaily: `CREATE FUNCTION "app"."add_to_usage_daily"() RETURNS trigger ${previousBody}`,
  usageDailyTrigger: `CREATE TRIGGER "chat_completions_add_to_usage_daily" AFTER INSERT ON "app"."chat_completions"
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION "app"."add_to_usage_daily"()`,
};
const usageDaily = [previous.addToUsageDaily, previous.usageDailyTrigger];

const databasesOfThePreviousMigrations = [
  { through: '0003_metering_charge_within_hold', functions: [previous.reserveCalls, previous.settleCallsReturningIds] },
  { through: '0004_beyond_the_spec', functions: [previous.reserveCalls, previous.settleCallsReturningIds, ...usageDaily] },
  { through: '0005_metering_admission_checks_the_key', functions: [previous.admitCallsOf0005, previous.settleCallsReturningIds, ...usageDaily] },
  { through: '0006_metering_holds_in_stock', functions: [previous.admitCallsOf0006, previous.settleCallsReturningIds, ...usageDaily] },
  { through: '0008_metering_forwarded_holds', functions: [previous.admitCallsOf0006, previous.settleCallsOf0007, ...usageDaily] },
];

describe('a database the previous migrations left', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The migrations folder as it stood when `tag` was the last migration. */
  function migrationsThrough(tag: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'meterway-api-migrations-'));
    dirs.push(dir);
    cpSync(migrations.folder, dir, { recursive: true });
    const journalPath = join(dir, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    const last = journal.entries.findIndex((entry) => entry.tag === tag);
    if (last < 0) throw new Error(`No migration ${tag}`);
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
    return dir;
  }

  it.each(databasesOfThePreviousMigrations)('migrated through $through gets the current functions', async ({ through, functions }) => {
    const handle = await createTestDb({ schema, migrations: { folder: migrationsThrough(through), table: migrations.table } });
    try {
      for (const statement of functions) await handle.db.execute(sql.raw(statement));
      await handle.migrate(migrations);
      await expectOneOfEach(handle.db);
      await expectChargedInFull(handle.db);
    } finally {
      await handle.close();
    }
  });

  it('migrated through 0025 with keys, rolled and not, lists every value they have in key_values as theirs', async () => {
    const handle = await createTestDb({ schema, migrations: { folder: migrationsThrough('0025_payment_objects'), table: migrations.table } });
    try {
      const organization = randomUUID();
      const [kept, rolled] = [randomUUID(), randomUUID()];
      await handle.db.execute(sql`insert into app.organizations (id, name) values (${organization}, 'before the directory')`);
      await handle.db
        .execute(sql`insert into app.publishable_keys (id, organization_id, name, value, previous_value, previous_value_expires_at, spend_limit_nanos, allowed_origins)
        values (${kept}, ${organization}, 'kept', 'pk_live_keptkeptkeptkeptkeptkept', null, null, 1, '[]'),
          (${rolled}, ${organization}, 'rolled', 'pk_live_newnewnewnewnewnewnewnew', 'pk_live_oldoldoldoldoldoldoldold', now() + interval '1 hour', 1, '[]')`);
      await handle.migrate(migrations);
      const directory = rows<{ value: string; key: string }>(
        await handle.db.execute(sql`select value, publishable_key_id as key from app.key_values where organization_id = ${organization} order by value`),
      );
      expect(directory).toEqual([
        { value: 'pk_live_keptkeptkeptkeptkeptkept', key: kept },
        { value: 'pk_live_newnewnewnewnewnewnewnew', key: rolled },
        { value: 'pk_live_oldoldoldoldoldoldoldold', key: rolled },
      ]);
    } finally {
      await handle.close();
    }
  });
});
