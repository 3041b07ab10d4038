import { rolesAllowedTo } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import type { Mailer } from '@meterway/service';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../metering/sql-values.js';
import { chargeFailedMail } from './charge-failed-mail.js';

type FailureRow = {
  id: string;
  amount_nanos: string;
  failure_message: string | null;
  organization_name: string;
  card_brand: string | null;
  card_last4: string | null;
  recipients: string | null;
};

/** Who is written to: the members who may add credit and manage auto top-up (owners, admins, billing). */
const creditRoles = sql.join(
  rolesAllowedTo.manageCredit.map((role) => sql`${role}`),
  sql`, `,
);

/**
 * Tells the people who look after the credit that a charge failed and auto top-up is off, once per
 * charge: each is mailed while its row is locked (SKIP LOCKED, so another instance's round passes
 * it by) and marked mailed in the same transaction; a mail that fails is tried again next round.
 */
export async function mailChargeFailures(
  deps: { db: Database; mailer: Mailer; consoleUrl: string },
  now: Date,
): Promise<{ mailed: number; errors: unknown[] }> {
  const result = { mailed: 0, errors: [] as unknown[] };
  const unmailed = rowsOf<{ organization_id: string; id: string }>(
    await deps.db.execute(sql`
      select organization_id, id from app.auto_top_up_charges where status = 'failed' and failure_mailed_at is null order by updated_at limit 50`),
  );
  for (const { organization_id: organizationId, id } of unmailed) {
    try {
      const sent = await deps.db.transaction(async (tx) => {
        const [row] = rowsOf<FailureRow>(
          await tx.execute(sql`
            select c.id, c.amount_nanos::text, c.failure_message, o.name as organization_name, a.card_brand, a.card_last4,
              (select string_agg(p.email, ', ' order by m.created_at, p.id) from app.memberships m join app.persons p on p.id = m.person_id
                where m.organization_id = c.organization_id and m.role in (${creditRoles})) as recipients
            from app.auto_top_up_charges c
            join app.organizations o on o.id = c.organization_id
            left join app.auto_top_ups a on a.organization_id = c.organization_id
            where c.organization_id = ${organizationId} and c.id = ${id} and c.status = 'failed' and c.failure_mailed_at is null
            for update of c skip locked`),
        );
        if (!row) return false;
        if (!row.recipients) throw new Error('the organisation has no one to write to');
        await deps.mailer.send(
          chargeFailedMail({
            to: row.recipients,
            organizationName: row.organization_name,
            amountNanos: BigInt(row.amount_nanos),
            reason: row.failure_message ?? 'The charge failed.',
            card: row.card_brand && row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : undefined,
            consoleUrl: deps.consoleUrl,
          }),
        );
        await tx.execute(
          sql`update app.auto_top_up_charges set failure_mailed_at = ${now.toISOString()}::timestamptz where organization_id = ${organizationId} and id = ${id}`,
        );
        return true;
      });
      if (sent) result.mailed += 1;
    } catch (error) {
      result.errors.push(error);
    }
  }
  return result;
}
