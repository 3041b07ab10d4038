import { parse as parseConnectionString } from 'pg-connection-string';
import { z } from 'zod';

/** Thrown at boot when the environment is invalid; the message lists every problem, one a line. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

// A refused value is echoed to help fix it, but never a secret: not the value of a secret's
// variable, nor the password of a URL (`postgres://user:password@host`).
const secretName = /SECRET|KEY|TOKEN|PASSWORD/;
const shownValue = (name: string, value: string | undefined) =>
  value === undefined || secretName.test(name) ? undefined : value.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/, '$1***@');

/**
 * Parses the environment once with one schema. Empty values count as unset, as shells and
 * .env files often leave them.
 */
export function parseEnv<TSchema extends z.ZodType>(schema: TSchema, source: NodeJS.ProcessEnv = process.env): z.output<TSchema> {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  throw new EnvError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const value = typeof issue.path[0] === 'string' ? shownValue(issue.path[0], present[issue.path[0]]) : undefined;
      return value === undefined ? `${name}: ${issue.message}` : `${name}: ${issue.message} (got "${value}")`;
    }),
  );
}

export const port = (fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a port number between 1 and 65535')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a port number between 1 and 65535').max(65535, 'must be a port number between 1 and 65535'))
    .default(fallback);

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).transform((value) => value.replace(/\/+$/, ''));

export const booleanFlag = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((value) => value === 'true');

/** A comma-separated list, trimmed, blanks dropped. */
export const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .default([]);

/** The names every service reads: where each part listens and how the others are reached. */
/**
 * A Postgres connection string in any form node-postgres takes: a host, a Unix socket
 * (`postgres://user@/db?host=/var/run/postgresql`, `socket:/var/run/postgresql?db=app`), `sslmode`
 * and the other parameters. Only what it cannot parse, or another scheme, is refused.
 */
export const postgresUrl = z.string().refine((value) => {
  if (!/^(postgres(ql)?:\/\/|socket:)/.test(value)) return false;
  try {
    parseConnectionString(value);
    return true;
  } catch {
    return false;
  }
}, 'must be a postgres:// URL');

export const stackEnvShape = {
  HOST: z.string().default('127.0.0.1'),
  CONSOLE_PORT: port(3000),
  API_PORT: port(8080),
  IDENTITY_PORT: port(4000),
  CONSOLE_URL: httpUrl.optional(),
  API_URL: httpUrl.optional(),
  IDENTITY_URL: httpUrl.optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('development'),
  /** Bearer token `/metrics` asks for; unset, `/metrics` answers only outside production. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
};

type StackEnv = z.output<z.ZodObject<typeof stackEnvShape>>;

/** Public URLs default to localhost on each part's port. */
export function publicUrls(env: StackEnv) {
  return {
    consoleUrl: env.CONSOLE_URL ?? `http://localhost:${env.CONSOLE_PORT}`,
    apiUrl: env.API_URL ?? `http://localhost:${env.API_PORT}`,
    identityUrl: env.IDENTITY_URL ?? `http://localhost:${env.IDENTITY_PORT}`,
  };
}
