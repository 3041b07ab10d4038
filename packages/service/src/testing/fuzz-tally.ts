import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { describeRequest } from './fuzz-http.js';

/** What multiplies every route's run count: FUZZ_RUNS=20 for a long hunt (`npm run test:long`). FUZZ_SEED replays one run. */
export const runsFactor = Number(process.env.FUZZ_RUNS ?? 1);

/**
 * The seeds a route's cases come from: half of its runs from a fixed seed, so every run sends the
 * cases the last one did and a regression shows the day it lands, and half from a fresh seed,
 * which a failure names; FUZZ_SEED=<that seed> sends those cases again.
 */
function seedsFor(numRuns: number): { seed: number; numRuns: number }[] {
  if (process.env.FUZZ_SEED) return [{ seed: Number(process.env.FUZZ_SEED), numRuns }];
  const fixed = Math.ceil(numRuns / 2);
  return [
    { seed: 20_261_202, numRuns: fixed },
    { seed: Math.floor(Math.random() * 2 ** 31), numRuns: numRuns - fixed },
  ];
}

export type RouteFuzz<C> = {
  app: FastifyInstance;
  route: string;
  cases: fc.Arbitrary<C>;
  numRuns: number;
  /** The request a case sends (the case without its bookkeeping) and who sends it, for the violation message. */
  request: (c: C) => { options: InjectOptions; who: string };
  /** What is wrong with the answer to it; an empty list means fine. */
  problems: (c: C, response: LightMyRequestResponse) => string[];
};

/** Counts what a suite did, for its closing line, and keeps every violation with what was sent. */
export function createTally() {
  const tally = { requests: 0, checks: 0, violations: [] as string[] };
  /** The statuses each route answered, to show the fuzzing got past the first gate. */
  const statuses = new Map<string, number[]>();

  /** Sends one request; a rejected inject (the app threw past its error handler) is a violation too. */
  async function send(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse | undefined> {
    tally.requests++;
    try {
      return await app.inject(options);
    } catch (error) {
      tally.violations.push(`${options.method} ${String(options.url).slice(0, 120)}: inject threw ${String(error)}`);
      return undefined;
    }
  }

  /** Records one invariant check; a failed one is kept with what was sent. */
  function check(ok: boolean, what: () => string): boolean {
    tally.checks++;
    if (!ok) tally.violations.push(what());
    return ok;
  }

  /** Sends a route its cases and checks every answer; fast-check's own failure report is kept as a violation beside the first one. */
  async function fuzzRoute<C>(spec: RouteFuzz<C>): Promise<void> {
    const property = fc.asyncProperty(spec.cases, async (c) => {
      const { options, who } = spec.request(c);
      const response = await send(spec.app, options);
      if (!response) return false;
      statuses.set(spec.route, [...new Set([...(statuses.get(spec.route) ?? []), response.statusCode])]);
      const problems = spec.problems(c, response);
      return check(problems.length === 0, () => `${spec.route} as ${who}: ${problems.join('; ')} ← ${describeRequest(options)}`);
    });
    for (const { seed, numRuns } of seedsFor(spec.numRuns)) {
      await fc
        .assert(property, { numRuns, seed })
        .catch((error: unknown) => check(false, () => `FUZZ_SEED=${seed}: ${String(error).split('\n').slice(0, 3).join(' ')}`));
    }
  }

  /** The suite's closing line: what it sent and checked, what broke, and every status seen. */
  function summary(service: string): string {
    const answered = [...new Set([...statuses.values()].flat())].sort().join(' ');
    return `${service} fuzz: ${tally.requests} requests sent, ${tally.checks} invariant checks, ${tally.violations.length} violations (statuses seen: ${answered})`;
  }

  return { tally, statuses, send, check, fuzzRoute, summary };
}

/** The one query a digest needs; a Drizzle database (either driver) has it. */
type Queryable = { execute: (query: string) => PromiseLike<unknown> };

/**
 * One digest per table over every row, so any insert, update or delete shows. Ordered by the
 * row's text, so two reads of the same rows agree on any database.
 */
export async function tableDigests(db: Queryable, schemaName: string, tables: readonly string[]): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const table of tables) {
    const result = (await db.execute(
      `select count(*)::text || ':' || md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "${schemaName}"."${table}" t`,
    )) as { rows: { digest: string }[] };
    digests[table] = result.rows[0]?.digest ?? '';
  }
  return digests;
}
