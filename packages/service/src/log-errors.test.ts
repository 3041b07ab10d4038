import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { serializeLoggedError } from './log-errors.js';

describe('errors as the services log them', () => {
  it("leave out a failed query's parameters, in the message, the stack and its fields, and keep the rest", () => {
    const cause = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
    const failed = new DrizzleQueryError(
      'select * from app.publishable_keys where value = $1',
      ['pk_live_SecretKeyValue0123456789abcdef', 'multi\nline'],
      cause,
    );
    const logged = JSON.stringify(serializeLoggedError(failed));
    expect(logged).not.toContain('pk_live_SecretKeyValue0123456789abcdef');
    expect(logged).not.toContain('multi');
    const serialized = serializeLoggedError(failed) as unknown as Record<string, unknown>;
    expect(serialized.message).toBe('Failed query: select * from app.publishable_keys where value = $1\nparams: [redacted]');
    expect(serialized.stack).toMatch(/^Error: Failed query: select \* from app\.publishable_keys where value = \$1\nparams: \[redacted\]\n {4}at /);
    expect(serialized).not.toHaveProperty('params');
    expect(serialized.query).toBe('select * from app.publishable_keys where value = $1');
    expect(JSON.stringify(serialized)).toContain('Connection terminated unexpectedly');
  });
});
