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
    args: '<email> <dollars> [reason]',
    summary: "add (or, negative, take back) credit for that person's organisation",
    run: async (args, { execute }) => {
      const [email, amount, ...reason] = args;
      if (!email?.includes('@') || !amount || !/^-?\d+(\.\d{1,2})?$/.test(amount)) {
        throw new UsageError(
          'grant-credit takes an e-mail address, an amount in dollars with at most 2 decimals (negative to take back), and an optional reason.',
        );
      }
      const result = await execute('grant-credit', { email, dollars: Number(amount), ...(reason.length ? { reason: reason.join(' ') } : {}) });
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
  ].join('\n');
}
