import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { type BodyFormat, createTally, encodings, headerValue, mutationsOf, nastyString, percentEncode, serverProblems, withField } from './fuzz.js';

const limit = 256 * 1024;
const form: BodyFormat = { contentType: 'application/x-www-form-urlencoded', encode: () => 'a=1', oddities: ['a=1&a=2'] };

describe('shared fuzzing helpers', () => {
  it("keeps a field named __proto__ as a field of the body that goes on the wire, and an array's length as it is", () => {
    expect(JSON.stringify(withField({ name: 'x' }, ['__proto__'], { admin: true }))).toBe('{"name":"x","__proto__":{"admin":true}}');
    // A mutation naming an array's length (a CI run met one) leaves the array as it is.
    expect(withField([1, 2], ['length'], 'x')).toEqual([1, 2]);
    expect(withField({ list: [1, 2] }, ['list', 'length'], -1)).toEqual({ list: [1, 2] });
  });

  it('mutates a valid body, and never the one it started from', () => {
    const valid = { name: 'key', budget: 10, allowedOrigins: ['https://app.example.com'] };
    const snapshot = JSON.stringify(valid);
    const mutated = fc.sample(mutationsOf(fc.constant(valid)), 200);
    expect(mutated.filter((body) => JSON.stringify(body) !== snapshot).length).toBeGreaterThan(150);
    expect(JSON.stringify(valid)).toBe(snapshot);
  });

  it('flags exactly the bodies over the limit as oversized, and keeps deep nesting under it', () => {
    // A long field name too: nesting under it would not fit in a small limit.
    const small = 16 * 1024;
    const value = fc.dictionary(fc.oneof(fc.string({ maxLength: 20 }), fc.constant('k'.repeat(10_000))), fc.string({ maxLength: 20 }), { maxKeys: 3 });
    fc.assert(
      fc.property(
        value.chain((body) => encodings(body, small)),
        (encoded) => {
          const bytes = Buffer.byteLength(encoded.payload ?? '');
          return encoded.oversized ? bytes > small : bytes <= small;
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('sends a service its own body format and never counts that format as a wrong media type', () => {
    const sent = fc.sample(encodings({ a: 1 }, limit, [form]), 2_000);
    const forms = sent.filter((encoded) => encoded.contentType === form.contentType);
    expect(forms.length).toBeGreaterThan(0);
    expect(forms.every((encoded) => encoded.payload === 'a=1' || encoded.payload === 'a=1&a=2')).toBe(true);
    expect(fc.sample(encodings({ a: 1 }, limit), 2_000).some((encoded) => encoded.contentType === form.contentType && encoded.payload === '{"a":1}')).toBe(
      true,
    );
  });

  it('percent-encodes a lone surrogate as the bytes a hostile client sends, and the rest as encodeURIComponent', () => {
    expect(percentEncode('a\ud800b')).toBe('a%ED%A0%80b');
    expect(percentEncode('é /?')).toBe(encodeURIComponent('é /?'));
  });

  it('makes header values a real socket can carry', () => {
    fc.assert(
      fc.property(headerValue, (value) => {
        validateHeaderValue('x-fuzz', value);
        return value === value.trim();
      }),
      { numRuns: 1_000 },
    );
  });

  it('reports a 5xx and internals in a failure, and nothing in a plain 4xx', () => {
    expect(serverProblems({ statusCode: 400, body: '{"detail":"bad"}' })).toEqual([]);
    expect(serverProblems({ statusCode: 502, body: '' })).toEqual(['answered 502']);
    expect(serverProblems({ statusCode: 400, body: 'TypeError: x\n    at parse (/srv/node_modules/y.js:1:1)' })).toHaveLength(1);
  });

  it('catches a route that answers 500 to one hostile input, with the request that did it', async () => {
    const app = Fastify({ logger: false });
    app.get('/echo', async (request, reply) => {
      const text = (request.query as { q?: string }).q ?? '';
      return text.includes('\u0000') ? reply.code(500).send({ detail: 'boom' }) : { text };
    });
    const { tally, statuses, fuzzRoute, summary } = createTally();
    await fuzzRoute({
      app,
      route: 'GET /echo',
      cases: nastyString.map((q) => ({ method: 'GET' as const, url: `/echo?q=${percentEncode(q)}` })),
      numRuns: 1_000,
      request: (options) => ({ options, who: 'a stranger' }),
      problems: (_c, response) => serverProblems(response),
    });
    await app.close();
    expect(tally.violations[0]).toMatch(/^GET \/echo as a stranger: answered 500 ← GET \/echo\?q=.*%00/);
    expect(statuses.get('GET /echo')).toContain(500);
    expect(summary('echo')).toMatch(/^echo fuzz: \d+ requests sent, \d+ invariant checks, [1-9]\d* violations \(statuses seen: (200 )?500\)$/);
  });
});
