import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** The built-in offline model's provider: always there, never in the file, serving `meterway-demo` unless a route says otherwise. */
export const demoProviderId = 'demo';

const providerSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1 to 64 lower-case letters, digits, - or _'),
    baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    /** The environment variable that holds the provider's API key (never the key itself). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be the name of an environment variable (A–Z, 0–9, _)')
      .optional(),
    timeoutMs: z.number().int().min(1000, 'must be at least 1000').optional(),
    /** Extra request headers some providers want (an API version, an organisation). */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** Where a model goes: a provider by id, or a provider and its own name for the model. */
const targetSchema = z.union([z.string().min(1), z.object({ provider: z.string().min(1), model: z.string().min(1) }).strict()], {
  error: 'must be a provider id, or { "provider", "model" }',
});

/** When a provider is skipped for failing (circuit-breaker.ts). */
const breakerSchema = z
  .object({
    /** Failures in a row (unreachable, timed out, 429, 5xx) that open the provider's circuit. */
    failuresToOpen: z.number().int().min(1, 'must be at least 1').default(5),
    /** How long calls then skip the provider, before one call tries it again. */
    openSeconds: z.number().int().min(1, 'must be at least 1').default(30),
  })
  .strict();

const fileSchema = z
  .object({
    providers: z.array(providerSchema).default([]),
    circuitBreaker: breakerSchema.default({ failuresToOpen: 5, openSeconds: 30 }),
    /** Per priced model, its providers in the order they are tried. */
    routes: z.record(z.string(), z.array(targetSchema).min(1, 'must name at least one provider')).default({}),
  })
  .strict();

export type ProviderSettings = z.output<typeof providerSchema> & { apiKey: string | undefined };
export type RouteTarget = { providerId: string; model: string | undefined };
export type ProvidersFile = { providers: ProviderSettings[]; routes: Map<string, RouteTarget[]>; circuitBreaker: z.output<typeof breakerSchema> };

type LoadContext = {
  /** The priced models (routes may name only these). */
  pricedModels: readonly string[];
  /** Reads an environment variable (the providers' API keys). */
  env: (name: string) => string | undefined;
};

const pathOf = (path: PropertyKey[]) =>
  path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('')
    .replace(/^\./, '');

/**
 * The providers file (PROVIDERS_FILE), validated whole: every problem is named with where it is,
 * and the api does not start with any. Besides its shape: provider ids are unique and not `demo`
 * (the built-in offline model's), every route names a priced model and known providers, and every
 * `apiKeyEnv` is set.
 */
export function loadProvidersFile(path: string, context: LoadContext): ProvidersFile {
  const problems: string[] = [];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`PROVIDERS_FILE ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`PROVIDERS_FILE ${path}: ${parsed.error.issues.map((issue) => `${pathOf(issue.path) || 'the file'} ${issue.message}`).join('; ')}`);
  }
  const ids = new Set<string>();
  for (const [index, provider] of parsed.data.providers.entries()) {
    if (provider.id === demoProviderId) problems.push(`providers[${index}].id '${demoProviderId}' is the built-in demo model's`);
    if (ids.has(provider.id)) problems.push(`providers[${index}].id '${provider.id}' is used twice`);
    ids.add(provider.id);
    if (provider.apiKeyEnv && !context.env(provider.apiKeyEnv)) problems.push(`providers[${index}].apiKeyEnv: ${provider.apiKeyEnv} is not set`);
  }
  const routes = new Map<string, RouteTarget[]>();
  for (const [model, targets] of Object.entries(parsed.data.routes)) {
    if (!context.pricedModels.includes(model)) problems.push(`routes.${model}: the model is not on the price list`);
    const resolved = targets.map((target) =>
      typeof target === 'string' ? { providerId: target, model: undefined } : { providerId: target.provider, model: target.model },
    );
    for (const [index, target] of resolved.entries()) {
      if (target.providerId !== demoProviderId && !ids.has(target.providerId)) problems.push(`routes.${model}[${index}]: no provider '${target.providerId}'`);
    }
    routes.set(model, resolved);
  }
  if (problems.length > 0) throw new Error(`PROVIDERS_FILE ${path}: ${problems.join('; ')}`);
  return {
    providers: parsed.data.providers.map((provider) => ({ ...provider, apiKey: provider.apiKeyEnv ? context.env(provider.apiKeyEnv) : undefined })),
    routes,
    circuitBreaker: parsed.data.circuitBreaker,
  };
}
