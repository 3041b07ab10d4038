import { registerMetrics } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import { Counter } from 'prom-client';
import type { IdentityDb } from '../db/index.js';
import type { IdentityConfig } from '../env.js';

export type LoginOutcome = 'success' | 'second_factor_required' | 'code_mailed' | 'invalid_credentials' | 'invalid_totp_code' | 'rate_limited';
export type RegistrationOutcome = 'success' | 'invalid_input' | 'weak_password' | 'duplicate_identifier' | 'rate_limited';
export type MailOutcome = 'sent' | 'failed';

/** What identity counts; the app makes one per instance and hands it to the routes in their context. */
export type IdentityMetrics = {
  login: (outcome: LoginOutcome) => void;
  registration: (outcome: RegistrationOutcome) => void;
  mail: (outcome: MailOutcome) => void;
};

/** `GET /metrics` for identity (docs/operations.md lists every metric), and the counters its routes bump. */
export function identityMetrics(app: FastifyInstance, config: IdentityConfig, db: IdentityDb): IdentityMetrics {
  const registry = registerMetrics(app, { prefix: 'meterway_identity_', token: config.metricsToken, production: config.production, pool: db.pool });
  const counter = (name: string, help: string) =>
    new Counter({ name: `meterway_identity_${name}`, help, labelNames: ['outcome'] as const, registers: [registry] });
  const logins = counter('logins_total', 'Password and second-factor login submissions, by outcome.');
  const registrations = counter('registrations_total', 'Sign-up submissions, by outcome.');
  const mails = counter('mails_total', 'Mails handed to the mail transport, by outcome (each retry counts).');

  // The attempt limits answer by throwing a 429 before the handler decides anything else.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 429 || request.method !== 'POST') return;
    if (request.routeOptions.url === '/self-service/login') logins.inc({ outcome: 'rate_limited' });
    if (request.routeOptions.url === '/self-service/registration') registrations.inc({ outcome: 'rate_limited' });
  });
  return {
    login: (outcome) => logins.inc({ outcome }),
    registration: (outcome) => registrations.inc({ outcome }),
    mail: (outcome) => mails.inc({ outcome }),
  };
}
