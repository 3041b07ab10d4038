import type { AddressInfo } from 'node:net';
import { Configuration, FrontendApi, ResponseError } from '@ory/client-fetch';
import { setupTestDb } from '@meterway/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { type AppDeps, createApp } from '../app.js';
import { migrations, schema } from '../db/index.js';
import type { Clock } from '../domain/clock.js';
import { loadIdentityConfig } from '../env.js';
import { smtpMailer } from '@meterway/service';
import type { Mailer } from '../mail/mailer.js';
import { cookieJar } from './cookie-jar.js';
import { startMailCatcher } from './mail-catcher.js';

/** A clock the tests can move; it starts at the real time. */
export function testClock(): Clock & { advance: (ms: number) => void } {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => (offset += ms) };
}

/**
 * A listening identity server on this file's own database, sending mail over SMTP to a real
 * smtp-server, as production would; `browser()` gives a client as the console uses it.
 */
type ServerOptions = Pick<AppDeps, 'sweep' | 'courier'> & {
  /** The transport behind the courier; by default SMTP to the mail catcher at `catcherUrl`. */
  transport?: (catcherUrl: string, from: string) => Mailer;
};

export function setupIdentityServer({ transport, ...options }: ServerOptions = {}) {
  const testDb = setupTestDb({ schema, migrations });
  const clock = testClock();
  let app: FastifyInstance | undefined;
  let mail: Awaited<ReturnType<typeof startMailCatcher>> | undefined;
  let baseUrl = '';
  beforeAll(async () => {
    mail = await startMailCatcher();
    // The port is known only after listening, and the public URL must name it: reserve one first.
    const probe = await createProbe();
    baseUrl = `http://127.0.0.1:${probe}`;
    const config = loadIdentityConfig({ LOG_LEVEL: 'silent', IDENTITY_URL: baseUrl, CONSOLE_URL: 'http://127.0.0.1:3999', SMTP_URL: mail.url });
    app = await createApp({ ...options, config, db: testDb.handle, clock, mailer: (transport ?? smtpMailer)(mail.url, config.mail.from) });
    await app.listen({ host: '127.0.0.1', port: probe });
  });
  afterAll(async () => {
    await app?.close();
    await mail?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('The identity server starts in beforeAll.');
    return value;
  };
  return {
    clock,
    testDb,
    get baseUrl() {
      return baseUrl;
    },
    get mail() {
      return ready(mail);
    },
    /** A fresh browser: its own cookie jar, the SDK configured as the console configures it. */
    browser() {
      const jar = cookieJar();
      const config = new Configuration({ basePath: baseUrl, credentials: 'include', headers: { Accept: 'application/json' }, fetchApi: jar.fetch });
      return { api: new FrontendApi(config), jar, fetch: jar.fetch };
    },
  };
}

async function createProbe(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The status and JSON body of a failed SDK call. */
export async function failure(promise: Promise<unknown>): Promise<{ status: number; body: Record<string, any> }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ResponseError) return { status: error.response.status, body: (await error.response.json().catch(() => ({}))) as Record<string, any> };
    throw error;
  }
  throw new Error('expected the call to fail');
}

let counter = 0;
/** A unique address per call, so tests never collide. */
export const uniqueEmail = (prefix = 'user') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}@example.com`;
