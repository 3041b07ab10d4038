import { describe, expect, it } from 'vitest';
import { redactUrl } from './fastify-options.js';

describe('redactUrl', () => {
  it('hides tokens and codes in query strings and keeps everything else', () => {
    expect(redactUrl('/self-service/logout?token=ory_lo_abc&return_to=x')).toBe('/self-service/logout?token=[redacted]&return_to=x');
    expect(redactUrl('/self-service/recovery?flow=1&token=SECRET')).toBe('/self-service/recovery?flow=1&token=[redacted]');
    expect(redactUrl('/self-service/verification?flow=1&code=123456')).toBe('/self-service/verification?flow=1&code=[redacted]');
    expect(redactUrl('/healthz')).toBe('/healthz');
  });
});
