import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb, type TestDbHandle } from '@meterway/db/testing';
import { migrations, schema } from '../db/index.js';
import { organizations, publishableKeys } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { newKeyValue } from '../domain/keys/key-value.js';
import { dollarsToNanos } from '../domain/money.js';
import { FakeStripe } from '../testing/fake-stripe.js';
import { startFakeIdentity } from './fake-identity.js';
import { type ApiProcess, removeBundle, soakServerBundle, startApi } from './api-process.js';
import { type SoakUpstream, soakImageTokens, startSoakUpstream } from './soak-upstream.js';

/** The console the stack's api serves: its BFF changes come from this origin, as a browser on the console sends them. */
export const soakConsoleOrigin = 'https://console.soak.example';

export const soakModel = 'soak-model';
export const soakOrigin = 'https://soak.example.com';
export const webhookSecret = 'whsec_soak_meterway';

/**
 * A price high enough that a few dollars of credit or budget last seconds under load, so both run
 * out and are topped up or raised again and again: 0.1 m$ per input token, 1 m$ per output token.
 */
function writePricing(): { file: string; remove: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'meterway-soak-pricing-'));
  const file = join(dir, 'pricing.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 'soak',
      currency: 'USD',
      unit: 'per 1M tokens',
      models: { [soakModel]: { input: 100, output: 1000, maxOutputTokens: 16384, images: soakImageTokens } },
    }),
  );
  return { file, remove: async () => rmSync(dir, { recursive: true, force: true }) };
}

type StackOptions = {
  /** The Postgres server (its `postgres` database URL) the suite's fresh database is made on. */
  serverUrl: string;
  instances: number;
  /** Identity's whoami, for the console's routes (see fake-identity.ts). */
  identity?: boolean;
  stripe?: boolean;
  /** More environment for the api processes (timeouts, say). */
  env?: Record<string, string>;
  upstreamChunkDelayMs?: number;
};

/**
 * What the soak and fault suites run against: a fresh database on the given server, the soak
 * upstream, optionally a fake Stripe and identity's whoami, and `instances` api processes
 * sharing that database, as production runs them behind a load balancer.
 */
export async function startSoakStack(options: StackOptions) {
  // What is running, to stop newest first: the api processes before the database they drain into.
  const stops: (() => Promise<unknown>)[] = [removeBundle];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  const running = <T>(promise: Promise<T>, stop: (value: T) => Promise<unknown>) =>
    promise.then((value) => {
      stops.push(() => stop(value));
      return value;
    });
  /** Like Promise.all, but waits for every start to finish, so a failure leaves nothing running unseen. */
  async function together<T extends readonly unknown[]>(promises: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
    const settled = await Promise.allSettled(promises);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
  }

  try {
    const stripe = options.stripe ? new FakeStripe() : undefined;
    // Independent and each a few seconds: started together.
    const [db, upstream, identity] = await together([
      running(createTestDb({ schema, migrations, databaseUrl: options.serverUrl }) as Promise<TestDbHandle<typeof schema>>, (handle) => handle.close()),
      running(startSoakUpstream({ chunkDelayMs: options.upstreamChunkDelayMs ?? 200 }), (server) => server.close()),
      options.identity ? running(startFakeIdentity(), (service) => service.close()) : undefined,
      stripe ? running(stripe.start(), () => stripe.close()) : undefined,
      soakServerBundle(),
    ] as const);
    const pricing = writePricing();
    stops.push(pricing.remove);
    const env: Record<string, string> = {
      DATABASE_URL: db.databaseUrl ?? '',
      CONSOLE_URL: soakConsoleOrigin,
      UPSTREAM_BASE_URL: upstream.baseUrl,
      PRICING_FILE: pricing.file,
      // The per-key rate limit is not what these suites measure; it must not hide the money paths.
      GATEWAY_RATE_LIMIT_PER_MINUTE: '1000000',
      ...(identity ? { IDENTITY_URL: identity.url } : {}),
      ...(stripe
        ? {
            STRIPE_SECRET_KEY: 'sk_test_soak',
            STRIPE_WEBHOOK_SECRET: webhookSecret,
            STRIPE_PUBLISHABLE_KEY: 'pk_test_soak',
            SOAK_STRIPE_URL: `http://${stripe.stripe.getApiField('host')}:${stripe.stripe.getApiField('port')}`,
          }
        : {}),
      ...options.env,
    };
    const instances: ApiProcess[] = await together(Array.from({ length: options.instances }, () => running(startApi(env), (instance) => instance.stop())));
    return soakStack({ db, upstream, instances, stripe, identity, close });
  } catch (error) {
    await close();
    throw error;
  }
}

type Parts = {
  db: TestDbHandle<typeof schema>;
  upstream: SoakUpstream;
  instances: ApiProcess[];
  stripe: FakeStripe | undefined;
  identity: Awaited<ReturnType<typeof startFakeIdentity>> | undefined;
  close: () => Promise<void>;
};

function soakStack({ db, upstream, instances, stripe, identity, close }: Parts) {
  /** An organisation with credit and one key, made straight in the database (no sign-up needed). */
  async function account(input: { creditDollars: number; budgetDollars: number }) {
    const organizationId = randomUUID();
    await db.db.insert(organizations).values({ id: organizationId, name: 'Soak' });
    if (input.creditDollars > 0) {
      await db.db.transaction((tx) =>
        postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(input.creditDollars), reference: `grant_${randomUUID()}` }),
      );
    }
    const keyId = randomUUID();
    const value = newKeyValue();
    await db.db
      .insert(publishableKeys)
      .values({ id: keyId, organizationId, name: 'Soak key', value, spendLimitNanos: dollarsToNanos(input.budgetDollars), allowedOrigins: [soakOrigin] });
    return { organizationId, keyId, value };
  }

  return {
    db,
    upstream,
    instances,
    account,
    get stripe() {
      if (!stripe) throw new Error('started without { stripe: true }');
      return stripe;
    },
    /** A verified person signed in at identity: the Cookie header of their browser. */
    signUp: () => {
      if (!identity) throw new Error('started without { identity: true }');
      return identity.signUp();
    },
    /** Stops whatever is still running and drops the database. */
    close,
  };
}

export type SoakStack = Awaited<ReturnType<typeof startSoakStack>>;

/**
 * DATABASE_URL, where these suites run (CI's pass over Postgres, `npm run test:soak`); without it
 * they are skipped, and say so and why.
 */
export function postgresUrlFor(suite: string): string | undefined {
  const url = process.env.DATABASE_URL;
  if (!url) process.stdout.write(`[${suite}] skipped: it runs real api processes on Postgres; set DATABASE_URL (npm run test:services, npm run test:soak).\n`);
  return url;
}

/** Prints a suite's figures on its own lines, outside any test's captured output. */
export function report(title: string, figures: Record<string, unknown>) {
  const lines = Object.entries(figures).map(([name, value]) => `  ${name}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  process.stdout.write(`\n[${title}]\n${lines.join('\n')}\n`);
}
