import type { Role } from '@meterway/contracts';
import { setupTestDb } from '@meterway/db/testing';
import type { LogStream, Mailer } from '@meterway/service';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../app.js';
import { and, eq } from 'drizzle-orm';
import { type ApiDb, migrations, schema } from '../db/index.js';
import { memberships, persons } from '../db/schema/index.js';
import type { PaymentProvider } from '../domain/payments/payment-provider.js';
import { type ApiConfig, loadApiConfig } from '../env.js';
import { identitySessions } from '../plugins/identity-sessions.js';
import { identityUsers } from './identity-users.js';
import { sharedIdentity } from './identity-process.js';

/** A signed-up person as the api knows them. */
export type TestMember = { cookie: string; email: string; organizationId: string; personId: string };

/**
 * The api built as production builds it, on this file's own fresh database. With
 * `{ identity: true }` a real identity service (the worker's, shared by its files) runs beside it and `users.signUp()` makes people.
 * `payments` builds the payment provider from the test's database (say, Stripe against a fake);
 * without it the app picks one from the configuration, as production does. `mailer` replaces the
 * mail transport (without it mail goes to the dev outbox, GET /dev/outbox); `logStream` takes the log's lines. `onAutoTopUpRound` is told
 * when a round of the auto top-up worker has finished. `replica` gives the app a read replica
 * (DATABASE_REPLICA_URL's handle), made once the file's database is open; the app closes neither.
 */
export function setupTestApp(
  env: NodeJS.ProcessEnv = {},
  options: {
    identity?: boolean;
    payments?: (deps: { config: ApiConfig; db: ApiDb }) => PaymentProvider;
    mailer?: Mailer;
    logStream?: LogStream;
    onAutoTopUpRound?: () => void;
    replica?: () => Promise<ApiDb>;
  } = {},
) {
  const testDb = setupTestDb({ schema, migrations });
  let app: FastifyInstance | undefined;
  let identity: Awaited<ReturnType<typeof sharedIdentity>> | undefined;
  let users: ReturnType<typeof identityUsers> | undefined;
  // The whoami cache's clock, so a test can outwait the 5 s cache without waiting.
  let cacheOffset = 0;
  beforeAll(async () => {
    if (options.identity) {
      identity = await sharedIdentity();
      users = identityUsers(identity.url);
    }
    const config = loadApiConfig({ LOG_LEVEL: 'silent', ...(identity ? { IDENTITY_URL: identity.url } : {}), ...env });
    const sessions = identitySessions(config.identityInternalUrl, () => Date.now() + cacheOffset);
    const payments = options.payments?.({ config, db: testDb.handle });
    const replica = await options.replica?.();
    app = await createApp({
      config,
      db: testDb.handle,
      ...(replica ? { replica } : {}),
      sessions,
      ...(payments ? { payments } : {}),
      ...(options.mailer ? { mailer: options.mailer } : {}),
      ...(options.logStream ? { logStream: options.logStream } : {}),
      ...(options.onAutoTopUpRound ? { onAutoTopUpRound: options.onAutoTopUpRound } : {}),
    });
    actAsTheConsole(app, new URL(config.consoleUrl).origin);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is set up in beforeAll (identity: ${Boolean(options.identity)}).`);
    return value;
  };
  return {
    get app() {
      return ready(app, 'The test app');
    },
    get users() {
      return ready(users, 'The identity service');
    },
    testDb,
    expireSessionCache: () => {
      cacheOffset += 5_001;
    },
    /** Signs a person up, provisioned in the api (their first /bff/me): their cookie, e-mail, organisation and person id. */
    signUpMember: async (options: { email?: string } = {}): Promise<TestMember> => {
      const user = await ready(users, 'The identity service').signUp(options);
      const me = (await ready(app, 'The test app').inject({ method: 'GET', url: '/bff/me', headers: { cookie: user.cookie } })).json();
      const [person] = await testDb.db.select({ id: persons.id }).from(persons).where(eq(persons.identityId, user.identityId));
      if (!person) throw new Error(`${user.email} was not provisioned`);
      return { cookie: user.cookie, email: user.email, organizationId: me.organizationId, personId: person.id };
    },
    /** Gives the person this role in the organisation; their next request sees it. */
    setRole: async (member: { organizationId: string; personId: string }, role: Role) => {
      await testDb.db
        .update(memberships)
        .set({ role })
        .where(and(eq(memberships.organizationId, member.organizationId), eq(memberships.personId, member.personId)));
      cacheOffset += 5_001;
    },
  };
}

/**
 * A browser names the console's origin on every console request but a GET (plugins/console-origin.ts),
 * so a test that calls /bff or /admin as the console does too, unless it names an origin of its own
 * (or `sec-fetch-site`) to act as another site.
 */
function actAsTheConsole(app: FastifyInstance, consoleOrigin: string) {
  const inject = app.inject.bind(app);
  const fromConsole = (options: InjectOptions): InjectOptions => {
    const url = typeof options.url === 'string' ? options.url : (options.url?.pathname ?? '');
    const headers = Object.keys(options.headers ?? {}).map((name) => name.toLowerCase());
    if (!/^\/(bff|admin)\//.test(url) || headers.includes('origin') || headers.includes('sec-fetch-site')) return options;
    return { ...options, headers: { origin: consoleOrigin, ...options.headers } };
  };
  app.inject = ((options?: InjectOptions | string, callback?: unknown) =>
    typeof options === 'object' ? inject(fromConsole(options), callback as never) : inject(options as never, callback as never)) as typeof app.inject;
}
