import { EnvError } from '@meterway/service';
import { describe, expect, it } from 'vitest';
import { loadApiConfig } from './env.js';

const problemsOf = (source: NodeJS.ProcessEnv) => {
  try {
    loadApiConfig(source);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  return [];
};

describe('RESERVATION_TTL_MS', () => {
  it('keeps a reservation 10 minutes unless told otherwise', () => {
    expect(loadApiConfig({}).gateway.reservationTtlMs).toBe(600_000);
    expect(loadApiConfig({ RESERVATION_TTL_MS: '120000' }).gateway.reservationTtlMs).toBe(120_000);
  });

  it('refuses a lifetime that is not a whole number of milliseconds of at least a second', () => {
    expect(problemsOf({ RESERVATION_TTL_MS: 'ten minutes' })).toEqual([expect.stringMatching(/^RESERVATION_TTL_MS: must be a number/)]);
    expect(problemsOf({ RESERVATION_TTL_MS: '1.5' })).toEqual([expect.stringMatching(/^RESERVATION_TTL_MS: /)]);
    expect(problemsOf({ RESERVATION_TTL_MS: '500', UPSTREAM_TIMEOUT_MS: '1000' })).toContainEqual(
      expect.stringMatching(/^RESERVATION_TTL_MS: must be at least 1000/),
    );
  });

  it("refuses a lifetime under twice the upstream timeout: a call may run for half its hold's lifetime", () => {
    expect(problemsOf({ RESERVATION_TTL_MS: '119999' })).toEqual([expect.stringMatching(/^RESERVATION_TTL_MS: must be at least twice UPSTREAM_TIMEOUT_MS/)]);
    expect(problemsOf({ RESERVATION_TTL_MS: '8000', UPSTREAM_TIMEOUT_MS: '4000' })).toEqual([]);
  });
});

describe('payments in production', () => {
  const production = { NODE_ENV: 'production', SMTP_URL: 'smtps://user:pass@mail.example.com' };

  it('refuses to start without Stripe, naming its three variables, since the sandbox credits any test card', () => {
    expect(problemsOf(production)).toEqual([
      'STRIPE_SECRET_KEY: is required in production, with STRIPE_WEBHOOK_SECRET and STRIPE_PUBLISHABLE_KEY: without them payments run in the sandbox, which credits any test card (set SANDBOX_PAYMENTS=allow to run it anyway)',
    ]);
  });

  it('starts with Stripe, or with the sandbox allowed explicitly; development needs neither', () => {
    const stripe = { STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PUBLISHABLE_KEY: 'pk_live_x' };
    expect(problemsOf({ ...production, ...stripe })).toEqual([]);
    expect(problemsOf({ ...production, SANDBOX_PAYMENTS: 'allow' })).toEqual([]);
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ ...production, SANDBOX_PAYMENTS: 'yes' })).toContainEqual(expect.stringMatching(/^SANDBOX_PAYMENTS: must be allow, or unset/));
  });
});

describe('DATABASE_REPLICA_URL', () => {
  it('is a replica of DATABASE_URL, so it refuses to start without it, and takes only a Postgres URL', () => {
    expect(problemsOf({ DATABASE_REPLICA_URL: 'postgres://reader@replica.internal/meterway' })).toEqual([
      'DATABASE_REPLICA_URL: needs DATABASE_URL, the Postgres it replicates (got "postgres://reader@replica.internal/meterway")',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://app@primary.internal/meterway', DATABASE_REPLICA_URL: 'mysql://replica' })).toEqual([
      expect.stringMatching(/^DATABASE_REPLICA_URL: must be a postgres:\/\/ URL/),
    ]);
    const config = loadApiConfig({
      DATABASE_URL: 'postgres://app@primary.internal/meterway',
      DATABASE_REPLICA_URL: 'postgres://reader@replica.internal/meterway',
    });
    expect(config.databaseReplicaUrl).toBe('postgres://reader@replica.internal/meterway');
  });
});
