import { packagePath } from '@meterway/service';
import type { ApiConfig } from '../env.js';
import { demoModel, demoModelId } from './providers/demo-model.js';
import type { ModelProvider } from './providers/model-provider.js';
import { openAiCompatible } from './providers/openai-compatible.js';
import { type ModelRoute, routedProvider } from './providers/routed.js';
import { demoProviderId, loadProvidersFile } from './providers-file.js';

type ProviderContext = {
  /** The priced models: routes may name only these. */
  pricedModels: readonly string[];
  /** Hears how long a provider took to its response headers (HTTP only). */
  onResponseHeaders?: ((seconds: number) => void) | undefined;
};

/**
 * The model providers the gateway forwards to. With providers in PROVIDERS_FILE: each model goes to
 * the providers its route names, in order, the next taking over when one fails before it could bill
 * (routed.ts); a priced model without a route goes to the first provider, the demo model to the
 * built-in one. Without: any OpenAI-compatible provider at UPSTREAM_BASE_URL, the one-provider
 * shorthand, or else the offline demo model.
 */
export function createModelProvider(config: ApiConfig, context: ProviderContext): ModelProvider {
  const path = config.gateway.providersFile ?? packagePath(import.meta.url, 'providers.json');
  const file = loadProvidersFile(path, { pricedModels: context.pricedModels, env: config.gateway.providerEnv });
  const http = (settings: {
    id?: string;
    baseUrl: string;
    apiKey?: string | undefined;
    timeoutMs?: number | undefined;
    headers?: Record<string, string> | undefined;
  }) =>
    openAiCompatible({
      name: settings.id,
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      headers: settings.headers,
      timeoutMs: settings.timeoutMs ?? config.gateway.timeoutMs,
      idleTimeoutMs: config.gateway.idleTimeoutMs,
      onResponseHeaders: context.onResponseHeaders,
    });

  if (file.providers.length === 0) return config.upstream ? http(config.upstream) : demoModel();
  if (config.upstream) throw new Error(`UPSTREAM_BASE_URL: set it, or providers in PROVIDERS_FILE ${path}, not both`);

  const providers = new Map<string, ModelProvider>([
    [demoProviderId, demoModel()],
    ...file.providers.map((settings) => [settings.id, http(settings)] as const),
  ]);
  const first = file.providers[0]!.id;
  const routes = new Map<string, ModelRoute[]>(
    [...file.routes].map(([model, targets]) => [model, targets.map((target) => ({ provider: providers.get(target.providerId)!, model: target.model }))]),
  );
  const defaultRoutes = (model: string): ModelRoute[] => [{ provider: providers.get(model === demoModelId ? demoProviderId : first)!, model: undefined }];
  return routedProvider({
    routesOf: (model) => routes.get(model) ?? defaultRoutes(model),
    providers: [...providers.values()],
    breaker: { failuresToOpen: file.circuitBreaker.failuresToOpen, openMs: file.circuitBreaker.openSeconds * 1000 },
  });
}
