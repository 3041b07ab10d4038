import { type BreakerSettings, CircuitBreaker, type Try } from './circuit-breaker.js';
import { type Attempt, type ChatBody, isProvidersFault, type ModelProvider, type Streamed, triesElsewhere, UpstreamFailure } from './model-provider.js';

/** Where a model's calls may go: a provider, and the provider's own name for the model if it differs. */
export type ModelRoute = { provider: ModelProvider; model: string | undefined };

type Options = {
  /** A model's routes, in the order they are tried. */
  routesOf: (model: string) => readonly ModelRoute[];
  /** Every provider the routes name: each gets a circuit breaker, and is closed with this one. */
  providers: readonly ModelProvider[];
  breaker: BreakerSettings;
  now?: () => number;
};

/** A route its breaker let a call through, and whether it is the model's last. */
type StartedTry = { route: ModelRoute; attempt: Try; last: boolean };

const bodyFor = (route: ModelRoute, body: ChatBody): ChatBody => (route.model ? { ...body, model: route.model } : body);

/**
 * Several providers behind one. A call goes to its model's first route whose provider's circuit
 * breaker lets it through, under the provider's own name for the model. When that provider fails
 * in a way it cannot bill (triesElsewhere) and before any of its answer came, the next route takes
 * the call over; a stream that has begun is never switched. `onAttempt` hears of every try.
 */
export function routedProvider(options: Options): ModelProvider {
  const breakers = new Map(options.providers.map((provider) => [provider.name, new CircuitBreaker(options.breaker, options.now)]));

  /** The routes a call tries, each as its breaker lets it through; a skipped one is reported. */
  function* tries(model: string, onAttempt: ((attempt: Attempt) => void) | undefined): Generator<StartedTry> {
    const routes = options.routesOf(model);
    for (const [index, route] of routes.entries()) {
      const attempt = breakers.get(route.provider.name)!.begin();
      if (attempt) yield { route, attempt, last: index === routes.length - 1 };
      else onAttempt?.({ provider: route.provider.name, outcome: 'skipped' });
    }
  }

  /** Ends a failed try: counted against the provider if it says the provider is unwell; answers whether the next route takes over. */
  function failedTry(error: unknown, signal: AbortSignal, { route, attempt, last }: StartedTry, onAttempt?: (attempt: Attempt) => void) {
    if (signal.aborted || !(error instanceof UpstreamFailure)) {
      attempt.end('neither');
      return false;
    }
    attempt.end(isProvidersFault(error) ? 'failed' : 'neither');
    const fallsBack = triesElsewhere(error) && !last;
    onAttempt?.({ provider: route.provider.name, outcome: 'failed', failure: error, fallsBack });
    return fallsBack;
  }

  const unavailable = (model: string) =>
    new UpstreamFailure(`every provider of ${model} is failing; each is tried again once its circuit breaker lets calls through`, false, 503);

  return {
    name: 'routed',
    nameFor: (model) => options.routesOf(model)[0]!.provider.name,
    complete: async (body, signal, onAttempt) => {
      let failure: unknown;
      for (const started of tries(body.model, onAttempt)) {
        const { route, attempt } = started;
        try {
          const completed = await route.provider.complete(bodyFor(route, body), signal);
          attempt.end('succeeded');
          onAttempt?.({ provider: route.provider.name, outcome: 'served' });
          return completed;
        } catch (error) {
          failure = error;
          if (!failedTry(error, signal, started, onAttempt)) throw error;
        }
      }
      throw failure ?? unavailable(body.model);
    },
    stream: async function* (body, signal, onAttempt) {
      let failure: unknown;
      for (const started of tries(body.model, onAttempt)) {
        const { route, attempt } = started;
        const provider = route.provider.name;
        const pieces = route.provider.stream(bodyFor(route, body), signal)[Symbol.asyncIterator]();
        let first: IteratorResult<Streamed>;
        try {
          first = await pieces.next();
        } catch (error) {
          failure = error;
          if (failedTry(error, signal, started, onAttempt)) continue;
          throw error;
        }
        onAttempt?.({ provider, outcome: 'served' });
        try {
          if (!first.done) yield first.value;
          for (let next = await pieces.next(); !next.done; next = await pieces.next()) yield next.value;
          attempt.end('succeeded');
        } catch (error) {
          // Part of the answer is out: the call stays with this provider, whose failure still counts.
          attempt.end(error instanceof UpstreamFailure && !signal.aborted && isProvidersFault(error) ? 'failed' : 'neither');
          throw error;
        } finally {
          // The caller stopped reading (its client left, its deadline): nothing learnt of the provider.
          attempt.end('neither');
          await pieces.return?.();
        }
        return;
      }
      throw failure ?? unavailable(body.model);
    },
    close: async () => {
      await Promise.all(options.providers.map((provider) => provider.close?.()));
    },
  };
}
