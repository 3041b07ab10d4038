import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type InjectOptions, type LightMyRequestResponse } from 'fastify';

/**
 * Building blocks of identity's fuzzing suite: hostile strings and values, bodies built from a
 * flow's own `ui.nodes` and then broken, hostile encodings, a browser cookie jar over `inject`,
 * the answers a failure may give (Kratos' error envelope, or the flow with a message saying what
 * is wrong), and a digest of the tables a malformed request must never change. (The api's suite
 * has its twin; the two services share no code, by design.)
 */

export const attackStrings = [
  "' OR '1'='1",
  "'; drop table identity.identities; --",
  "admin@example.com' --",
  '{"$gt":""}',
  '../../../../etc/passwd',
  '..%2f..%2fsecrets',
  'a\r\nSet-Cookie: injected=1',
  '%0d%0aLocation:%20https://evil.example',
  '\u0000',
  'a\u0000b@example.com',
  '\ud800',
  'x\udfff@example.com',
  '\u202eexe.txt@example.com',
  '👩‍👩‍👧‍👦@example.com',
  'Z̸̢̛͉a̷l̶g̴o̷',
  '\ufeff',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '${7*7}{{7*7}}%s%n',
  '__proto__',
  'constructor.prototype.admin',
  'NaN',
  '-1',
  ' ',
  '',
  'A'.repeat(10_000),
  `${'a'.repeat(300)}@example.com`,
];

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

const nested = (depth: number, asArray: boolean): unknown => {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
};

export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, 123456) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 20, max: 1_000 }), fc.boolean()).map(([depth, asArray]) => nested(depth, asArray)) },
);

type Change = { kind: 'set'; key: number | string; value: unknown } | { kind: 'drop'; key: number } | { kind: 'root'; value: unknown };

const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.oneof(fc.nat(), nastyString), value: nastyValue }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('drop' as const), key: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('root' as const), value: nastyValue }) },
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
  const paths = fieldPaths(value);
  if (step.kind === 'drop') return paths.length ? withField(value, paths[step.key % paths.length] as string[], undefined, true) : value;
  const path = typeof step.key === 'number' ? (paths[step.key % Math.max(paths.length, 1)] ?? ['field']) : [step.key];
  return withField(value, path, step.value);
}

/** A body with one to three hostile changes: a field set to anything, a field dropped, the whole body replaced. */
export const mutationsOf = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.tuple(valid, fc.array(change, { minLength: 1, maxLength: 3 })).map(([body, steps]) => steps.reduce<unknown>(applyChange, body));

/** A flat form body (`traits.email=…`), as an HTML form posts it. */
function formOf(value: unknown): string {
  const pairs: [string, string][] = [];
  const walk = (prefix: string, item: unknown) => {
    if (item && typeof item === 'object' && !Array.isArray(item)) for (const [key, inner] of Object.entries(item)) walk(prefix ? `${prefix}.${key}` : key, inner);
    else pairs.push([prefix || 'value', typeof item === 'string' ? item : JSON.stringify(item) ?? '']);
  };
  walk('', value);
  return pairs.map(([name, item]) => `${percentEncode(name)}=${percentEncode(item)}`).join('&');
}

export type EncodedBody = { payload?: string; contentType?: string; oversized?: boolean };

/** Ways a broken client or an attacker sends a body: JSON, a form, broken JSON, the wrong media type, too much of it. */
export function encodings(value: unknown, limitBytes: number): fc.Arbitrary<EncodedBody> {
  const text = JSON.stringify(value) ?? 'null';
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8').map((contentType) => ({ payload: text, contentType })) },
    { weight: 3, arbitrary: fc.constant({ payload: formOf(value), contentType: 'application/x-www-form-urlencoded' }) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.nat(), fc.constantFrom('', '"', '{', ',', '\\', 'NaN')).map(([at, junk]) => ({
        payload: `${text.slice(0, text.length ? at % text.length : 0)}${junk}`,
        contentType: 'application/json',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('[]', '""', 'null', '1e999', '{"__proto__":{"admin":true}}', '{"traits.email":["a","b"]}', 'a=1&a=2&traits.email=x&traits.email=y').map((payload) => ({
        payload,
        contentType: payload.includes('=') && !payload.startsWith('{') ? 'application/x-www-form-urlencoded' : 'application/json',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1_000, max: Math.floor(limitBytes / 2) - 100 }).map((depth) => ({ payload: `{"method":${'['.repeat(depth)}${']'.repeat(depth)}}`, contentType: 'application/json' })),
    },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'multipart/form-data; boundary=fuzz', 'application/xml', 'application/jsonx').map((contentType) => ({ payload: text, contentType })) },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 2048 }).map((extra) => ({ payload: JSON.stringify({ padding: 'x'.repeat(limitBytes + extra) }), contentType: 'application/json', oversized: true })),
    },
  );
}

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

export const queryString = (pairs: [string, string][]) =>
  pairs.length ? `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}` : '';

/**
 * Header values as a real HTTP/1.1 socket delivers them: Node's parser refuses NUL, CR, LF and
 * other control characters and strips surrounding whitespace; the bytes arrive as latin1.
 */
export const headerValue: fc.Arbitrary<string> = fc
  .string({
    unit: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) }, { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) }).map((code) => String.fromCharCode(code)),
    maxLength: 300,
  })
  .map((value) => value.trim());

/** The Cookie header a browser would send back after these responses (a jar over `inject`). */
export function jarFrom(...responses: LightMyRequestResponse[]): Map<string, string> {
  const jar = new Map<string, string>();
  for (const response of responses) {
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number }[]) {
      if (cookie.maxAge !== undefined && cookie.maxAge <= 0) jar.delete(cookie.name);
      else jar.set(cookie.name, cookie.value);
    }
  }
  return jar;
}

export const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');

/** Fragments that must never reach a client: stack frames, file paths, SQL and driver errors. */
const internals = /node_modules|\/work\/|\bat [\w.<>]+ \(|Failed query|drizzle|TypeError|RangeError|ReferenceError/;

/** Messages a flow carries, top-level and on its nodes. */
const flowMessages = (body: any): unknown[] => [...(body?.ui?.messages ?? []), ...((body?.ui?.nodes ?? []) as any[]).flatMap((node) => node?.messages ?? [])];

/**
 * What is wrong with an answer to a malformed request. Failures are Kratos' envelope
 * `{error:{code,status,message}}` (code = the HTTP status), or for a flow submission the flow
 * itself with a message saying what is wrong; redirects go only to the allow-listed origins; no
 * answer hands out a session.
 */
export function answerProblems(response: LightMyRequestResponse, allowedOrigins: readonly string[]): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500) problems.push(`answered ${status}`);
  for (const cookie of response.cookies as { name: string; value: string }[]) {
    if (cookie.name === 'ory_kratos_session' && cookie.value) problems.push('handed out a session');
  }
  if (status >= 300 && status < 400) {
    const location = String(response.headers.location ?? '');
    let origin = '';
    try {
      origin = new URL(location).origin;
    } catch {
      // not an absolute URL
    }
    if (!allowedOrigins.includes(origin)) problems.push(`redirected to ${location.slice(0, 200)}`);
    return problems;
  }
  if (status < 400) return problems;
  if (internals.test(response.body)) problems.push(`leaks internals: ${response.body.slice(0, 200)}`);
  let body: any;
  try {
    body = response.json();
  } catch {
    return [...problems, `a ${status} without a JSON body`];
  }
  const error = body?.error;
  if (error) {
    if (error.code !== status || typeof error.status !== 'string' || typeof error.message !== 'string' || !error.message.trim()) {
      problems.push(`a ${status} with a malformed Kratos error: ${response.body.slice(0, 200)}`);
    }
  } else if (!(status === 400 && body?.ui && flowMessages(body).length > 0)) {
    problems.push(`a ${status} that is neither a Kratos error nor a flow saying what is wrong: ${response.body.slice(0, 200)}`);
  }
  return problems;
}

/** Counts what a suite did, for its closing line. */
export function createTally() {
  const tally = { requests: 0, checks: 0, violations: [] as string[] };
  return {
    tally,
    async send(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse | undefined> {
      tally.requests++;
      try {
        return await app.inject(options);
      } catch (error) {
        tally.violations.push(`${options.method} ${String(options.url).slice(0, 120)}: inject threw ${String(error)}`);
        return undefined;
      }
    },
    check(ok: boolean, what: () => string): boolean {
      tally.checks++;
      if (!ok) tally.violations.push(what());
      return ok;
    },
  };
}

/** One digest per table over every row, ordered by the row's text so any database agrees. */
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

/**
 * The routes a plugin registers, read with an onRoute hook on a throwaway instance (Fastify has
 * no route list of its own; createApp builds the real one the same way).
 */
export async function routeTableOf<T>(plugin: FastifyPluginAsync<T & Record<never, never>>, deps: T): Promise<string[]> {
  const probe = Fastify({ logger: false });
  const routes: string[] = [];
  probe.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${route.url}`);
  });
  await probe.register(plugin, deps as never);
  await probe.ready();
  await probe.close();
  return routes;
}

export const describeRequest = (options: InjectOptions) =>
  `${options.method} ${String(options.url).slice(0, 200)} ${JSON.stringify(options.headers ?? {}).slice(0, 300)} ${String(options.payload ?? '').slice(0, 200)}`;
