import { lastGrantDayOf } from '@meterway/contracts';
import type { OperationInput, OperationName, OperationOutput } from '../operator/operations.js';

/** Runs one operator operation, through the running api or on the database directly. */
export type Execute = <TName extends OperationName>(name: TName, input: OperationInput<TName>) => Promise<OperationOutput<TName>>;

export type CommandContext = { execute: Execute; systemAdminEmails: readonly string[] };

/** Wrong arguments: the CLI prints the message and the usage text. */
export class UsageError extends Error {}

type Command = {
  /** The arguments as the usage text shows them. */
  args: string;
  summary: string;
  /** Checks the arguments (before anything is opened), runs the operation, returns the line to print. */
  run: (args: string[], context: CommandContext) => Promise<string>;
};

function oneEmail(command: string, args: string[]): string {
  const [email, ...extra] = args;
  if (!email || extra.length || !email.includes('@')) throw new UsageError(`${command} takes one argument, an e-mail address.`);
  return email;
}

/** YYYY-MM-DD naming a day that exists (Date would take 2026-02-30 as March 2nd). */
const isCalendarDate = (text: string) => {
  const day = new Date(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
};

/** `--expires YYYY-MM-DD` (or `--expires=YYYY-MM-DD`) anywhere among the arguments, and the rest. */
function expiresOption(args: string[]): { rest: string[]; expiresOn?: string } {
  const at = args.findIndex((arg) => arg === '--expires' || arg.startsWith('--expires='));
  if (at === -1) return { rest: args };
  const inline = args[at]!.startsWith('--expires=');
  const expiresOn = inline ? args[at]!.slice('--expires='.length) : args[at + 1];
  const rest = args.filter((_, index) => index !== at && (inline || index !== at + 1));
  if (!expiresOn || !isCalendarDate(expiresOn) || rest.some((arg) => arg.startsWith('--expires'))) {
    throw new UsageError('--expires takes one date, YYYY-MM-DD: the last day the credit can be used (it expires at the end of that day, UTC).');
  }
  return { rest, expiresOn };
}

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** The admin CLI's commands. */
export const commands: Record<string, Command> = {
  grant: {
    args: '<email>',
    summary: 'make the person with this e-mail a system admin',
    run: async (args, { execute }) => {
      const result = await execute('grant-admin', { email: oneEmail('grant', args) });
      return result.changed ? `${result.email} is now a system admin.` : `${result.email} was already a system admin; nothing changed.`;
    },
  },
  revoke: {
    args: '<email>',
    summary: 'take system admin away from the person with this e-mail',
    run: async (args, { execute, systemAdminEmails }) => {
      const result = await execute('revoke-admin', { email: oneEmail('revoke', args) });
      // The flag is one of two sources; the environment list is read on every request.
      if (systemAdminEmails.includes(result.email.toLowerCase())) {
        return `${result.email}: system-admin flag ${result.changed ? 'cleared' : 'was not set'}, but SYSTEM_ADMIN_EMAILS lists this address, so they stay a system admin until it is removed there.`;
      }
      return result.changed ? `${result.email} is no longer a system admin.` : `${result.email} was not a system admin; nothing changed.`;
    },
  },
  'grant-credit': {
    args: '<email> <dollars> [note] [--expires YYYY-MM-DD]',
    summary: "add credit to that person's organisation (negative: take it back); with --expires, promotional credit",
    run: async (args, { execute }) => {
      const { rest, expiresOn } = expiresOption(args);
      const [email, amount, ...note] = rest;
      if (!email?.includes('@') || !amount || !/^-?\d+(\.\d{1,2})?$/.test(amount)) {
        throw new UsageError(
          'grant-credit takes an e-mail address, an amount in dollars with at most 2 decimals (negative to take back), an optional note (required with --expires) and an optional --expires YYYY-MM-DD.',
        );
      }
      if (expiresOn !== undefined && !note.length) throw new UsageError('grant-credit with --expires needs a note saying why (e.g. trial, support).');
      const input = { email, dollars: Number(amount), ...(note.length ? { reason: note.join(' ') } : {}), ...(expiresOn !== undefined ? { expiresOn } : {}) };
      const result = await execute('grant-credit', input);
      if (result.expiresAt) {
        return `Granted ${dollars.format(result.amount)} of promotional credit to ${result.organizationName} (${result.email}), usable through ${lastGrantDayOf(result.expiresAt)} (expires ${result.expiresAt}); balance now ${dollars.format(result.balance)}.`;
      }
      return `${result.amount >= 0 ? 'Granted' : 'Took back'} ${dollars.format(Math.abs(result.amount))} ${result.amount >= 0 ? 'to' : 'from'} ${result.organizationName} (${result.email}); balance now ${dollars.format(result.balance)}.`;
    },
  },
};

export function usage(): string {
  const width = Math.max(...Object.entries(commands).map(([name, command]) => `${name} ${command.args}`.length));
  return [
    'Usage: npm run admin -- <command> [arguments]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, command]) => `  ${`${name} ${command.args}`.padEnd(width)}  ${command.summary}`),
    '',
    "Reads the api's environment: DATABASE_URL, or else DATA_DIR (a relative path is taken from the",
    'repository root, as npm start does). Works while the stack runs: on PGlite through the running',
    "api's operator socket, DATA_DIR/api-operator.sock; otherwise on the database directly.",
    '',
    'grant-credit --expires YYYY-MM-DD gives promotional credit, spent before paid credit and usable',
    'through that day: what is left of it expires at the end of the day, 00:00 UTC the day after.',
    'It needs a note saying why (e.g. trial, support), which the organisation sees in its history.',
  ].join('\n');
}
