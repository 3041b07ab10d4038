import fc from 'fast-check';
import type { InjectOptions } from 'fastify';

export type EncodedBody = { payload?: string; contentType?: string; oversized?: boolean };

/** A way a service reads a body besides JSON (identity reads HTML forms), so it is sent too and no longer counts as a wrong media type. */
export type BodyFormat = {
  contentType: string;
  encode: (value: unknown) => string;
  /** Hand-written payloads in this format that have tripped parsers before. */
  oddities: readonly string[];
};

const jsonTypes = ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'];
const wrongTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/octet-stream',
  'application/jsonx',
  'application/json; charset=utf-16',
  'text/json',
];
const oddJson = [
  '{"a":1,"a":{"b":2}}',
  '[]',
  '""',
  'true',
  'null',
  '1e999',
  '-',
  '\ufeff{}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"traits.email":["a","b"]}',
];

/**
 * Ways a broken client or an attacker sends a body: valid JSON, the service's other formats,
 * broken JSON, deep nesting, the wrong media type, no body, too much of it (flagged `oversized`).
 */
export function encodings(value: unknown, limitBytes: number, formats: readonly BodyFormat[] = []): fc.Arbitrary<EncodedBody> {
  const text = JSON.stringify(value) ?? 'null';
  const accepted = new Set(formats.map((format) => format.contentType));
  const oddities = [
    ...oddJson.map((payload) => ({ payload, contentType: 'application/json' })),
    ...formats.flatMap((format) => format.oddities.map((payload) => ({ payload, contentType: format.contentType }))),
  ];
  // Short keys only, so the nesting below stays under the body limit.
  const deepKeys = ['field', ...(value && typeof value === 'object' ? Object.keys(value) : [])].filter((key) => JSON.stringify(key).length <= 64);
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...jsonTypes).map((contentType) => ({ payload: text, contentType })) },
    ...formats.map((format) => ({ weight: 5, arbitrary: fc.constant({ payload: format.encode(value), contentType: format.contentType }) })),
    {
      weight: 2,
      arbitrary: fc.tuple(fc.nat(), fc.constantFrom('', '"', '{', ',', "'", '\\', 'NaN', '/*', '\u0000')).map(([at, junk]) => {
        const cut = text.length ? at % text.length : 0;
        return { payload: `${text.slice(0, cut)}${junk}`, contentType: 'application/json' };
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(...oddities) },
    {
      weight: 1,
      // Deep nesting inside otherwise valid JSON, under the body limit: parsers and validators must not recurse to death.
      arbitrary: fc.tuple(fc.constantFrom(...deepKeys), fc.integer({ min: 1_000, max: Math.floor(limitBytes / 2) - 100 })).map(([key, depth]) => ({
        payload: `{${JSON.stringify(key)}:${'['.repeat(depth)}${']'.repeat(depth)}}`,
        contentType: 'application/json',
      })),
    },
    { weight: 2, arbitrary: fc.constantFrom(...wrongTypes.filter((type) => !accepted.has(type))).map((contentType) => ({ payload: text, contentType })) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ contentType: 'application/json' }) },
    {
      // Often enough that a route fuzzed only a few dozen times still meets its body limit (the fuzz tests check it did).
      weight: 4,
      arbitrary: fc.integer({ min: 1, max: 4096 }).map((extra) => ({
        payload: JSON.stringify({ padding: 'x'.repeat(limitBytes + extra) }),
        contentType: 'application/json',
        oversized: true,
      })),
    },
  );
}

/** The parsed JSON of a payload, if it is JSON at all (what a lenient server could make of it). */
export function jsonOf(payload: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (payload === undefined) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(payload.replace(/^\ufeff/, '')) };
  } catch {
    return { ok: false };
  }
}

/**
 * Header values as a real HTTP/1.1 socket delivers them: Node's parser refuses NUL, CR, LF and
 * other control characters and strips surrounding whitespace, and the bytes arrive as latin1.
 * `inject` skips that parser, so the suites keep to what the network can carry.
 */
export const headerValue: fc.Arbitrary<string> = fc
  .string({
    unit: fc
      .oneof(
        { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
        { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
        { weight: 1, arbitrary: fc.constant(0x09) },
      )
      .map((code) => String.fromCharCode(code)),
    maxLength: 300,
  })
  .map((value) => value.trim());

/** Hostile strings made safe for a header: percent-encoded where the raw bytes could not cross a socket. */
export const headerSafe = (value: string) => (/^[\t\x20-\x7e\x80-\xff]*$/.test(value) ? value.trim() : encodeURIComponent(value));

/** encodeURIComponent that also carries lone surrogates, as the (invalid UTF-8) bytes a hostile client can send. */
export function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0xd800 || code > 0xdfff) out += encodeURIComponent(char);
    else out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
  }
  return out;
}

/** A query string from pairs; a repeated name is how a client sends the same parameter twice. */
export const queryString = (pairs: [string, string][]) =>
  pairs.length ? `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}` : '';

/** Fragments that must never reach a client: stack frames, file paths, SQL, driver names. */
const internals = /node_modules|\/work\/|\bat [\w.<>]+ \(|Failed query|drizzle|ECONNREFUSED|TypeError|RangeError|ReferenceError/;

/**
 * What is wrong with any service's answer to a malformed request, whatever its error shape: a
 * 5xx, or a failure whose body shows internals. An empty list means fine so far.
 */
export function serverProblems(response: { statusCode: number; body: string }): string[] {
  const problems: string[] = [];
  if (response.statusCode >= 500) problems.push(`answered ${response.statusCode}`);
  if (response.statusCode >= 400 && internals.test(response.body)) problems.push(`leaks internals: ${response.body.slice(0, 200)}`);
  return problems;
}

/** A short, printable account of a request for a violation message. */
export const describeRequest = (options: InjectOptions) =>
  `${options.method} ${String(options.url).slice(0, 200)} ${JSON.stringify(options.headers ?? {}).slice(0, 300)} ${String(options.payload ?? '').slice(0, 200)}`;
