import type { ChatBody, ModelProvider } from './model-provider.js';

/** Where a model's calls go: a provider, and the provider's own name for the model if it differs. */
export type ModelRoute = { provider: ModelProvider; model: string | undefined };

/**
 * Several providers behind one: each call goes to the route of its model (routeOf), under the
 * provider's own name for the model when the route gives one. Every provider is closed with it.
 */
export function routedProvider(routeOf: (model: string) => ModelRoute, providers: readonly ModelProvider[]): ModelProvider {
  const forward = (body: ChatBody) => {
    const route = routeOf(body.model);
    return { provider: route.provider, body: route.model ? { ...body, model: route.model } : body };
  };
  return {
    name: 'routed',
    nameFor: (model) => routeOf(model).provider.name,
    complete: (body, signal) => {
      const call = forward(body);
      return call.provider.complete(call.body, signal);
    },
    stream: (body, signal) => {
      const call = forward(body);
      return call.provider.stream(call.body, signal);
    },
    close: async () => {
      await Promise.all(providers.map((provider) => provider.close?.()));
    },
  };
}
