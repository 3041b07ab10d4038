import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setupTestDb } from '@meterway/db/testing';
import { smtpMailer } from '@meterway/service';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../db/index.js';
import { type CourierAttempt, courierPolicy, createCourier } from './courier.js';
import { recoveryLinkMail } from './templates.js';

// An abandoned mail is logged at warn with what identifies it, never with its code or link.

const testDb = setupTestDb({ schema, migrations });

describe('a mail the courier gives up on', () => {
  it('is logged at warn naming the message and its template, without the link it carried', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const logged: { level: string; fields: unknown; message: string }[] = [];
    const record = (level: string) => (fields: unknown, message: string) => logged.push({ level, fields, message });
    const log = { info: record('info'), warn: record('warn') } as unknown as FastifyBaseLogger;
    let now = Date.now();
    const outcomes: CourierAttempt[] = [];
    const courier = createCourier({
      db: testDb.db,
      transport: smtpMailer(`smtp://127.0.0.1:${port}`, 'Meterway <no-reply@meterway.local>'),
      clock: { now: () => new Date(now) },
      log,
      pollIntervalMs: 60_000,
      onAttempt: (attempt) => outcomes.push(attempt),
    });
    const link = 'http://127.0.0.1:4000/self-service/recovery?flow=00000000-0000-4000-8000-000000000000&token=SECRETtokenSECRETtokenSECRETtoke';
    await courier.send(recoveryLinkMail('someone@example.com', link));
    for (let attempt = 1; attempt <= courierPolicy.maxAttempts; attempt++) {
      await courier.drain();
      now += courierPolicy.maxRetryMs;
    }
    await courier.close();

    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'abandoned']);
    const warnings = logged.filter((entry) => entry.level === 'warn');
    expect(warnings).toEqual([
      {
        level: 'warn',
        message: 'courier: mail abandoned after its last attempt',
        fields: expect.objectContaining({ template: 'recovery_link', attempts: 6, error: expect.stringMatching(/ECONNREFUSED/) }),
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain('SECRETtoken');
  });
});
