import fc from 'fast-check';

/**
 * Strings that have broken web services before: injections (SQL in both services' schemas,
 * NoSQL, templates), traversal, header splitting, NUL and lone surrogates, bidi and zero-width
 * characters, number-likes, prototype keys, e-mail-shaped variants of the same, and sheer length.
 */
export const attackStrings = [
  "' OR '1'='1",
  "'; drop table app.persons; --",
  "'; drop table identity.identities; --",
  '1; select pg_sleep(10) --',
  "admin'--",
  "admin@example.com' --",
  '{"$gt":""}',
  '{"$ne":null,"$where":"sleep(1000)"}',
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '..%2f..%2fsecrets',
  '%2e%2e%2f%2e%2e%2fsecrets',
  '..\\..\\windows\\win.ini',
  'a\r\nSet-Cookie: injected=1',
  '%0d%0aSet-Cookie:%20injected=1',
  '%0d%0aLocation:%20https://evil.example',
  '\u0000',
  'a\u0000b',
  'a\u0000b@example.com',
  '%00',
  '\ud800',
  'x\udfffy',
  'x\udfff@example.com',
  '\u202eexe.txt',
  '\u202eexe.txt@example.com',
  '\u200f\u200e\u061c',
  '👩‍👩‍👧‍👦🔥',
  '👩‍👩‍👧‍👦@example.com',
  'Z̸̢̛͉a̷l̶g̴o̷',
  '\ufeff',
  '\ufeffBOM',
  '\u2028\u2029',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '${7*7}{{7*7}}%s%n',
  '__proto__',
  'constructor',
  'constructor.prototype.admin',
  'NaN',
  'Infinity',
  '-0',
  '-1',
  '1e309',
  '9007199254740993',
  '0x10',
  ' ',
  '',
  'null',
  'A'.repeat(10_000),
  `${'a'.repeat(300)}@example.com`,
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

/** `leaf` inside `depth` arrays or single-key objects. */
const nested = (depth: number, leaf: unknown, asArray: boolean): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
};

/** Any JSON value a client could send where a field is expected: wrong types, deep nesting, huge strings. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(null, true, false, 0, -1, 0.1, -0.5, 123456, 1e21, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_VALUE, 1e308),
  },
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
export function withField(value: unknown, path: string[], next: unknown, remove = false): unknown {
  const [key, ...rest] = path;
  if (key === undefined || !value || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) };
  // An array's length is not a field of the JSON sent: redefining it throws, and setting it would only resize the array.
  if (Array.isArray(value) && key === 'length') return copy;
  if (remove && !rest.length) delete copy[key];
  // defineProperty, so a key named __proto__ stays an own property and reaches the wire.
  else
    Object.defineProperty(copy, key, {
      value: rest.length ? withField(copy[key], rest, next, remove) : next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
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

/** A valid body with one to three hostile changes (a field set to anything, dropped, the whole body replaced or wrapped in an array). */
export const mutationsOf = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.tuple(valid, fc.array(change, { minLength: 1, maxLength: 3 })).map(([body, steps]) => steps.reduce<unknown>(applyChange, body));
