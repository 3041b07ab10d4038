import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import { type Attempt, type ChatBody, type Completed, type ModelProvider, UpstreamFailure, UpstreamTimeout } from './model-provider.js';
import { routedProvider } from './routed.js';

// The fallback policy and the circuit breaker on their own, with providers that fail on cue and a
// clock the test moves (providers-fallback.test.ts drives the same through the gateway over HTTP).

type Behaviour = 'answers' | 'unreachable' | 'timeout-before-sending' | 'timeout-after-sending' | 'bad-request';

function provider(name: string) {
  let behaviour: Behaviour = 'answers';
  const models: string[] = [];
  const fail = () => {
    if (behaviour === 'unreachable') throw new UpstreamFailure('connect ECONNREFUSED', false);
    if (behaviour === 'timeout-before-sending') throw new UpstreamTimeout('the model provider did not answer in time', false);
    if (behaviour === 'timeout-after-sending') throw new UpstreamTimeout('the model provider did not answer in time', true);
    if (behaviour === 'bad-request') throw new UpstreamFailure('the model provider answered 400', false, 400);
  };
  const answer = (body: ChatBody): Completed => ({ body: { model: body.model }, produced: { '0:content': name } });
  const leaf: ModelProvider = {
    name,
    complete: async (body) => {
      models.push(body.model);
      fail();
      return answer(body);
    },
    stream: async function* (body) {
      models.push(body.model);
      fail();
      yield { chunk: {}, produced: { '0:content': name } };
    },
  };
  return { leaf, models, behave: (next: Behaviour) => void (behaviour = next) };
}

function setup(failuresToOpen = 2) {
  const clock = { now: 0 };
  const [a, b] = [provider('a'), provider('b')];
  const attempts: Attempt[] = [];
  const routed = routedProvider({
    routesOf: () => [
      { provider: a.leaf, model: undefined },
      { provider: b.leaf, model: 'b-own-name' },
    ],
    providers: [a.leaf, b.leaf],
    breaker: { failuresToOpen, openMs: 10_000 },
    now: () => clock.now,
  });
  const signal = new AbortController().signal;
  const body: ChatBody = { model: 'm', messages: [] };
  const complete = () => routed.complete(body, signal, (attempt) => attempts.push(attempt)).then((done) => done.produced['0:content']);
  const stream = async () => {
    let text = '';
    for await (const piece of routed.stream(body, signal, (attempt) => attempts.push(attempt))) text += piece.produced['0:content'];
    return text;
  };
  const outcomes = () =>
    attempts.splice(0).map((attempt) => `${attempt.provider} ${attempt.outcome}${attempt.outcome === 'failed' && attempt.fallsBack ? ' →' : ''}`);
  return { clock, a, b, complete, stream, outcomes };
}

describe('a model routed to two providers', () => {
  it("takes a call over, under the next provider's own name for the model, only when the first could not bill it", async () => {
    const { a, b, complete, stream, outcomes } = setup(100);
    for (const behaviour of ['unreachable', 'timeout-before-sending'] as const) {
      a.behave(behaviour);
      expect(await complete()).toBe('b');
      expect(await stream()).toBe('b');
      expect(outcomes()).toEqual(['a failed →', 'b served', 'a failed →', 'b served']);
      a.behave('answers');
      expect(await complete()).toBe('a');
      outcomes();
    }
    expect(b.models.every((model) => model === 'b-own-name')).toBe(true);

    // Had the request: it may bill it. Refused it as wrong: another would too.
    for (const behaviour of ['timeout-after-sending', 'bad-request'] as const) {
      a.behave(behaviour);
      await expect(complete()).rejects.toBeInstanceOf(UpstreamFailure);
      await expect(stream()).rejects.toBeInstanceOf(UpstreamFailure);
      expect(outcomes()).toEqual(['a failed', 'a failed']);
    }
  });

  it('skips a provider whose circuit opened, tries it once when the open period is over, and closes it when that try succeeds', async () => {
    const { clock, a, complete, outcomes } = setup();
    a.behave('unreachable');
    await complete();
    await complete();
    expect(outcomes()).toEqual(['a failed →', 'b served', 'a failed →', 'b served']);

    a.behave('answers');
    clock.now = 9_999;
    expect(await complete()).toBe('b');
    expect(outcomes()).toEqual(['a skipped', 'b served']);

    clock.now = 10_000;
    expect(await complete()).toBe('a');
    expect(await complete()).toBe('a');
    expect(outcomes()).toEqual(['a served', 'a served']);
  });

  it('opens the circuit again for a whole period when its trial fails, and answers a call whose every provider is skipped without trying any', async () => {
    const { clock, a, b, complete, outcomes } = setup();
    a.behave('unreachable');
    b.behave('unreachable');
    await expect(complete()).rejects.toThrow('connect ECONNREFUSED');
    await expect(complete()).rejects.toThrow('connect ECONNREFUSED');
    expect(outcomes()).toEqual(['a failed →', 'b failed', 'a failed →', 'b failed']);

    const nothingTried = await complete().catch((error: unknown) => error);
    expect(nothingTried).toMatchObject({
      status: 503,
      billable: false,
      message: 'every provider of m is failing; each is tried again once its circuit breaker lets calls through',
    });
    expect(outcomes()).toEqual(['a skipped', 'b skipped']);

    clock.now = 10_000;
    b.behave('answers');
    expect(await complete()).toBe('b');
    expect(outcomes()).toEqual(['a failed →', 'b served']);
    clock.now = 19_999;
    expect(await complete()).toBe('b');
    expect(outcomes()).toEqual(['a skipped', 'b served']);
  });
});

describe('a circuit breaker', () => {
  it('lets one trial through a half-open circuit at a time, and a try that says nothing of the provider frees the slot', () => {
    const clock = { now: 0 };
    const breaker = new CircuitBreaker({ failuresToOpen: 1, openMs: 100 }, () => clock.now);
    breaker.begin()!.end('failed');
    expect(breaker.begin()).toBeUndefined();

    clock.now = 100;
    const trial = breaker.begin()!;
    expect(breaker.begin()).toBeUndefined();
    trial.end('neither');
    trial.end('failed'); // only a try's first end counts
    const next = breaker.begin()!;
    next.end('succeeded');
    expect(breaker.open).toBe(false);
    expect(breaker.begin()).toBeDefined();
  });
});
