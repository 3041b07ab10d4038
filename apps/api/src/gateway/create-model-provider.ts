import type { ApiConfig } from '../env.js';
import { demoModel } from './providers/demo-model.js';
import type { ModelProvider } from './providers/model-provider.js';
import { openAiCompatible } from './providers/openai-compatible.js';

/**
 * Any OpenAI-compatible provider when UPSTREAM_BASE_URL is set; otherwise the offline demo model.
 * `onResponseHeaders` hears how long the provider took to its response headers (HTTP only).
 */
export function createModelProvider(config: ApiConfig, onResponseHeaders?: (seconds: number) => void): ModelProvider {
  if (!config.upstream) return demoModel();
  return openAiCompatible({
    baseUrl: config.upstream.baseUrl,
    apiKey: config.upstream.apiKey,
    timeoutMs: config.gateway.timeoutMs,
    idleTimeoutMs: config.gateway.idleTimeoutMs,
    onResponseHeaders,
  });
}
