import type { Database } from '@meterway/db';
import { z } from 'zod';
import { grantCredit } from '../domain/credit/grant-credit.js';
import { setSystemAdmin } from '../domain/people/set-system-admin.js';

/**
 * What an operator can do to a running api, one entry per operation: its input and result shapes
 * and the domain call. The operator socket serves each as `POST /operator/<name>`; the admin CLI
 * runs the same entry directly when it owns the database. A new operation is one more entry here
 * and one more command in cli/commands.ts.
 */
type Operation<TInput extends z.ZodType, TOutput extends z.ZodType> = {
  input: TInput;
  output: TOutput;
  run: (db: Database, input: z.output<TInput>) => Promise<z.output<TOutput>>;
};

const operation = <TInput extends z.ZodType, TOutput extends z.ZodType>(definition: Operation<TInput, TOutput>) => definition;

const personEmail = z.object({ email: z.string().trim().min(1, 'email is required').max(320) });
const systemAdminChange = z.object({ email: z.string(), systemAdmin: z.boolean(), changed: z.boolean() });

const creditGrant = z.object({
  email: z.string().trim().min(1, 'email is required').max(320),
  dollars: z.number().finite().min(-1_000_000).max(1_000_000),
  reason: z.string().max(500).optional(),
  /** A promotional grant's last day (YYYY-MM-DD, UTC); without it, an adjustment. */
  expiresOn: z.iso.date({ error: 'expiresOn must be a date, YYYY-MM-DD' }).optional(),
});
const creditGranted = z.object({ email: z.string(), organizationName: z.string(), amount: z.number(), balance: z.number(), expiresAt: z.string().nullable() });

export const operations = {
  'grant-credit': operation({ input: creditGrant, output: creditGranted, run: (db, input) => grantCredit(db, input) }),
  'grant-admin': operation({ input: personEmail, output: systemAdminChange, run: (db, { email }) => setSystemAdmin(db, email, true) }),
  'revoke-admin': operation({ input: personEmail, output: systemAdminChange, run: (db, { email }) => setSystemAdmin(db, email, false) }),
};

export type OperationName = keyof typeof operations;
export type OperationInput<TName extends OperationName> = z.input<(typeof operations)[TName]['input']>;
export type OperationOutput<TName extends OperationName> = z.output<(typeof operations)[TName]['output']>;

/** Runs an operation on a database this process holds, validating the input as the socket does. */
export async function runOperation<TName extends OperationName>(db: Database, name: TName, input: OperationInput<TName>): Promise<OperationOutput<TName>> {
  const entry = operations[name] as Operation<z.ZodType, z.ZodType>;
  return entry.run(db, entry.input.parse(input)) as Promise<OperationOutput<TName>>;
}
