import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import type { IdentityContext } from '../context.js';
import { migrations, schema } from '../db/index.js';
import { createIdentity } from '../domain/identities.js';
import { hashPassword } from '../domain/passwords.js';
import { createSession, findActiveSession, recordActivity } from '../domain/sessions.js';
import { loadIdentityConfig } from '../env.js';
import { maskToken, newRealToken, tokensMatch } from '../flows/csrf.js';
import { errors } from '../flows/errors.js';
import type { FlowRequest } from '../flows/flow-request.js';
import { flowUi } from '../flows/flow-store.js';
import type { Outcome } from '../flows/outcome.js';
import type { Mail } from '../mail/mailer.js';
import { testClock } from './identity-server.js';
import { testPassword } from './flows.js';

/**
 * What flow steps run against in unit tests: an identity context on this file's own database, a
 * clock the test moves, and the mail and metrics the steps sent.
 */
export function setupFlowContext() {
  const testDb = setupTestDb({ schema, migrations });
  const clock = testClock();
  const mails: Mail[] = [];
  const logins: string[] = [];
  const registrations: string[] = [];
  const config = loadIdentityConfig({ LOG_LEVEL: 'silent' });
  const ctx = (): IdentityContext => ({
    config,
    db: testDb.db,
    clock,
    mailer: { send: async (mail) => void mails.push(mail as Mail) },
    metrics: { login: (outcome) => void logins.push(outcome), registration: (outcome) => void registrations.push(outcome), mail: () => {} },
    secret: 'a test secret of at least thirty-two characters',
  });
  return { ctx, clock, mails, logins, registrations, config };
}

/**
 * One browser (or API client): its cookies live across the requests it makes. `request()` is what a
 * step sees of one request; `csrf()` is the masked token a form would carry.
 */
export function testBrowser(ctx: IdentityContext, kind: { json: boolean } = { json: false }) {
  const jar: { csrf: string | undefined; session: string | undefined; device: string | undefined } = { csrf: undefined, session: undefined, device: undefined };
  const request = (): FlowRequest => {
    const sentCsrf = jar.csrf;
    return {
      json: kind.json,
      acceptsJson: kind.json,
      ip: '192.0.2.7',
      userAgent: 'flow-steps test',
      url: `${ctx.config.identityUrl}/self-service/test`,
      csrfCookie: sentCsrf,
      currentSession: async () => {
        const session = jar.session && (await findActiveSession(ctx.db, jar.session, ctx.clock.now(), ctx.config.sessionIdleTimeoutMs));
        return session ? recordActivity(ctx.db, session, ctx.clock.now()) : undefined;
      },
      checkCsrf: (sentToken) => {
        if (!sentCsrf || typeof sentToken !== 'string' || !tokensMatch(sentToken, sentCsrf)) throw errors.csrf('test: the CSRF token does not match');
      },
      isKnownDevice: (identityId) => jar.device === identityId,
      cookies: {
        ensureCsrf: () => sentCsrf ?? (jar.csrf = newRealToken()),
        rotateCsrf: () => (jar.csrf = newRealToken()),
        setSession: (token) => void (jar.session = token),
        setDevice: (identityId) => void (jar.device = identityId),
      },
    };
  };
  /** Holds a session of `identityId`, as if it had signed in (at `authenticatedAt`, by default now). */
  const signIn = async (identityId: string, options: { aal?: 'aal1' | 'aal2'; authenticatedAt?: Date } = {}) => {
    const now = ctx.clock.now();
    const { token } = await createSession(ctx.db, {
      identityId,
      aal: options.aal ?? 'aal1',
      methods: [{ method: 'password', aal: 'aal1', completed_at: now.toISOString() }],
      device: { ip_address: '192.0.2.7', user_agent: 'flow-steps test', location: '' },
      now,
      ...(options.authenticatedAt ? { authenticatedAt: options.authenticatedAt } : {}),
    });
    jar.session = token;
  };
  return { request, jar, signIn, csrf: () => maskToken(jar.csrf ?? '') };
}

export const uniqueEmail = () => `flow-${randomUUID()}@example.com`;

/** An identity with a password, as registration leaves it. */
export async function seedIdentity(ctx: IdentityContext, email = uniqueEmail(), password = testPassword) {
  const identity = await createIdentity(ctx.db, { email, hashedPassword: await hashPassword(password), now: ctx.clock.now() });
  return { identityId: identity.id, email, password };
}

/** The message ids a rendered flow shows: its own, then each node's. */
export function shownMessageIds(outcome: Outcome): number[] {
  if (outcome.kind !== 'render') throw new Error(`expected a rendered flow, got ${outcome.kind}`);
  const ui = flowUi(outcome.flow);
  return [...(ui.messages ?? []), ...ui.nodes.flatMap((node) => node.messages)].map((message) => message.id);
}

/** The Kratos error id of an error outcome. */
export function errorIdOf(outcome: Outcome): string | undefined {
  if (outcome.kind !== 'error') throw new Error(`expected an error, got ${outcome.kind}`);
  return outcome.error.init.id;
}

/** The flow a render outcome shows. */
export function renderedFlow(outcome: Outcome) {
  if (outcome.kind !== 'render') throw new Error(`expected a rendered flow, got ${outcome.kind}`);
  return outcome.flow;
}
