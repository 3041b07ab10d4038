import { problemSchema } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * Building blocks of the api's fuzzing suite: hostile strings and values, mutations of a valid
 * request body, hostile encodings of that body, the answer shapes every failure must have, and a
 * fingerprint of the tables whose rows a malformed request must never change.
 */

/** Strings that have broken web services before: injections, traversal, odd unicode, number-likes. */
export const attackStrings = [
  "' OR '1'='1",
  "'; drop table app.persons; --",
  '1; select pg_sleep(10) --',
  "admin'--",
  '{"$gt":""}',
  '{"$ne":null,"$where":"sleep(1000)"}',
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2fsecrets',
  '..\\..\\windows\\win.ini',
  'a\r\nSet-Cookie: injected=1',
  '%0d%0aSet-Cookie:%20injected=1',
  '\u0000',
  'a\u0000b',
  '%00',
  '\ud800',
  'x\udfffy',
  '\u202eexe.txt',
  '\u200f\u200e\u061c',
  '👩‍👩‍👧‍👦🔥',
  'Z̸̢̛͉a̷l̶g̴o̷',
  '\ufeffBOM',
  '\u2028\u2029',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '${7*7}{{7*7}}%s%n',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '9007199254740993',
  '0x10',
  ' ',
  '',
  'null',
  'A'.repeat(10_000),
];

/** One code point of any kind, including the lone surrogates and C0 controls a JSON string can carry. */
const anyChar = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)) },
);

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...attackStrings) },
  { weight: 3, arbitrary: fc.string({ unit: anyChar, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...attackStrings)).map(([text, attack]) => `${text}${attack}${text}`) },
);

const nested = (depth: number, leaf: unknown, asArray: boolean): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
};

/** Any JSON value a client could send where a field is expected: wrong types, deep nesting, huge strings. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -1, 0.1, -0.5, 1e21, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_VALUE, 1e308) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 20, max: 2_000 }), fc.boolean()).map(([depth, asArray]) => nested(depth, 'deep', asArray)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map((length) => 'x'.repeat(length)) },
);

type Change = { kind: 'set'; key: number | string; value: unknown } | { kind: 'drop'; key: number } | { kind: 'root'; value: unknown } | { kind: 'wrap' };

const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.oneof(fc.nat(), nastyString), value: nastyValue }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('drop' as const), key: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('root' as const), value: nastyValue }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wrap' as const }) },
);

/** The paths of an object's fields, nested ones included (traits.email, messages.0.content). */
function fieldPaths(value: unknown, prefix: string[] = [], depth = 0): string[][] {
  if (!value || typeof value !== 'object' || depth > 3) return [];
  return Object.keys(value).flatMap((key) => [[...prefix, key], ...fieldPaths((value as Record<string, unknown>)[key], [...prefix, key], depth + 1)]);
}

/** A copy of `value` with the field at `path` set (or, with `remove`, dropped); every object on the way is copied. */
function withField(value: unknown, path: string[], next: unknown, remove = false): unknown {
  const [key, ...rest] = path;
  if (key === undefined || !value || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) };
  if (remove && !rest.length) delete copy[key];
  // defineProperty, so a key named __proto__ stays an own property and reaches the wire.
  else Object.defineProperty(copy, key, { value: rest.length ? withField(copy[key], rest, next, remove) : next, enumerable: true, writable: true, configurable: true });
  return copy;
}

function applyChange(value: unknown, step: Change): unknown {
  if (step.kind === 'root') return step.value;
  if (step.kind === 'wrap') return [value];
  const paths = fieldPaths(value);
  if (step.kind === 'drop') return paths.length ? withField(value, paths[step.key % paths.length] as string[], undefined, true) : value;
  const path = typeof step.key === 'number' ? (paths[step.key % Math.max(paths.length, 1)] ?? ['field']) : [step.key];
  return withField(value, path, step.value);
}

/** A valid body with one to three hostile changes (a field set to anything, dropped, the whole body replaced). */
export const mutationsOf = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.tuple(valid, fc.array(change, { minLength: 1, maxLength: 3 })).map(([body, steps]) => steps.reduce<unknown>(applyChange, body));

export type EncodedBody = { payload?: string; contentType?: string; oversized?: boolean };

const jsonTypes = ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'];
const wrongTypes = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=fuzz', 'application/xml', 'application/octet-stream', 'application/jsonx', 'application/json; charset=utf-16', 'text/json'];

/** Ways a broken client or an attacker sends a body: valid JSON, broken JSON, deep nesting, the wrong media type, too much of it. */
export function encodings(value: unknown, limitBytes: number): fc.Arbitrary<EncodedBody> {
  const text = JSON.stringify(value) ?? 'null';
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...jsonTypes).map((contentType) => ({ payload: text, contentType })) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.nat(), fc.constantFrom('', '"', '{', ',', "'", '\\', 'NaN', '/*', '\u0000')).map(([at, junk]) => {
        const cut = text.length ? at % text.length : 0;
        return { payload: `${text.slice(0, cut)}${junk}`, contentType: 'application/json' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{"a":1,"a":{"b":2}}', '[]', '""', 'true', '1e999', '-', '\ufeff{}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}').map(
        (payload) => ({ payload, contentType: 'application/json' }),
      ),
    },
    {
      weight: 1,
      // Deep nesting inside otherwise valid JSON, under the body limit: parsers and validators must not recurse to death.
      arbitrary: fc.integer({ min: 1_000, max: Math.floor(limitBytes / 2) - 100 }).map((depth) => ({
        payload: `{"field":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        contentType: 'application/json',
      })),
    },
    { weight: 2, arbitrary: fc.constantFrom(...wrongTypes).map((contentType) => ({ payload: text, contentType })) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ contentType: 'application/json' }) },
    {
      weight: 1,
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
 * `inject` skips that parser, so the suite keeps to what the network can carry.
 */
export const headerValue: fc.Arbitrary<string> = fc
  .string({
    unit: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
      { weight: 1, arbitrary: fc.constant(0x09) },
    ).map((code) => String.fromCharCode(code)),
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

/** Forged page tokens: the token format with a made-up signature, junk, and tokens that are too long. */
export const forgedPageToken: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      createdAt: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
      id: fc.oneof(fc.uuid(), nastyString),
      direction: fc.constantFrom('next', 'previous'),
      asc: fc.boolean(),
      scope: fc.oneof(fc.constantFrom('persons', 'feedback', 'chat-completions'), nastyString),
    })
    .chain((payload) =>
      fc.base64String({ minLength: 40, maxLength: 44 }).map((signature) => `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature.replace(/=+$/, '')}`),
    ),
  fc.base64String({ maxLength: 200 }),
  fc.constantFrom('.', '..', 'a.b.c', 'e30.', '.e30', 'bnVsbA.AAAA', 'x'.repeat(600), '%00.%00'),
  nastyString,
);

export type Family = 'problem' | 'openai' | 'any';

/** Fragments that must never reach a client: stack frames, file paths, SQL, driver names. */
const internals = /node_modules|\/work\/|\bat [\w.<>]+ \(|Failed query|drizzle|ECONNREFUSED|TypeError|RangeError|ReferenceError/;

/**
 * What is wrong with an answer to a malformed request: a 5xx, a failure that is not in the
 * route's error shape or says nothing, or internals in the body. An empty list means fine.
 */
export function answerProblems(family: Family, response: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500) problems.push(`answered ${status}`);
  if (status < 400) return problems;
  if (internals.test(response.body)) problems.push(`leaks internals: ${response.body.slice(0, 200)}`);
  if (family === 'any') return problems;
  let body: any;
  try {
    body = response.json();
  } catch {
    return [...problems, `a ${status} without a JSON body`];
  }
  if (family === 'problem') {
    if (!String(response.headers['content-type']).startsWith('application/problem+json')) problems.push(`a ${status} that is not application/problem+json`);
    const parsed = problemSchema.safeParse(body);
    if (!parsed.success) problems.push(`a ${status} that is not a problem: ${response.body.slice(0, 200)}`);
    else if (!parsed.data.detail.trim()) problems.push(`a ${status} with an empty detail`);
    else if (parsed.data.status !== status) problems.push(`a ${status} whose problem says ${parsed.data.status}`);
  } else {
    const error = body?.error;
    const shaped =
      error &&
      typeof error.message === 'string' &&
      error.message.trim() !== '' &&
      typeof error.type === 'string' &&
      typeof error.code === 'string' &&
      (error.param === null || typeof error.param === 'string') &&
      Object.keys(body).length === 1;
    if (!shaped) problems.push(`a ${status} not in OpenAI's error shape: ${response.body.slice(0, 200)}`);
  }
  return problems;
}

/** Counts what a suite did, for its closing line. */
export function createTally() {
  const tally = { requests: 0, checks: 0, violations: [] as string[] };
  return {
    tally,
    /** Sends one request; a rejected inject (the app threw past its error handler) is a violation too. */
    async send(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse | undefined> {
      tally.requests++;
      try {
        return await app.inject(options);
      } catch (error) {
        tally.violations.push(`${options.method} ${String(options.url).slice(0, 120)}: inject threw ${String(error)}`);
        return undefined;
      }
    },
    /** Records one invariant check; a failed one is kept with what was sent. */
    check(ok: boolean, what: () => string): boolean {
      tally.checks++;
      if (!ok) tally.violations.push(what());
      return ok;
    },
  };
}

/**
 * One digest per table over every row, so any insert, update or delete shows. Ordered by the
 * row's text, so two reads of the same rows agree on any database.
 */
export async function tableDigests(db: Database, schemaName: string, tables: readonly string[]): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const table of tables) {
    const result = (await db.execute(
      sql.raw(`select count(*)::text || ':' || md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "${schemaName}"."${table}" t`),
    )) as unknown as { rows: { digest: string }[] };
    digests[table] = result.rows[0]?.digest ?? '';
  }
  return digests;
}

/** A short, printable account of a request for a violation message. */
export const describeRequest = (options: InjectOptions) =>
  `${options.method} ${String(options.url).slice(0, 160)} ${JSON.stringify(options.headers ?? {}).slice(0, 200)} ${String(options.payload ?? '').slice(0, 200)}`;
