// zod/mini: this loads before the first paint; it is ~18 kB (gzip) lighter than zod and its
// schemas compose with the contracts' zod schemas.
import { z } from 'zod/mini';

/**
 * What `/config.json` holds. The server writes it from the environment, so one build serves every
 * environment; the SPA reads it once before rendering.
 */
export const runtimeConfigSchema = z.object({
  /** The API base URL for each page origin the console may be served from. */
  apiUrls: z.record(z.string(), z.url()),
  identityUrl: z.url(),
  docsUrl: z.url(),
});

export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

let loaded: RuntimeConfig | undefined;

export async function loadRuntimeConfig(): Promise<RuntimeConfig> {
  // An absolute URL, because outside a browser (tests) fetch has no base to resolve against.
  const response = await fetch(new URL('/config.json', window.location.href));
  if (!response.ok) throw new Error(`/config.json answered ${response.status} ${response.statusText}`);
  const result = runtimeConfigSchema.safeParse(await response.json());
  if (!result.success) throw new Error(`/config.json is invalid: ${z.prettifyError(result.error)}`);
  loaded = result.data;
  return loaded;
}

export function setRuntimeConfig(config: RuntimeConfig): void {
  loaded = config;
}

export function runtimeConfig(): RuntimeConfig {
  if (!loaded) throw new Error('The runtime config is read before it was loaded');
  return loaded;
}

/** The API URL for the page's origin; any origin the config does not list is refused (spec §7). */
export function apiBaseUrl(origin: string = window.location.origin, config: RuntimeConfig = runtimeConfig()): string {
  const url = Object.hasOwn(config.apiUrls, origin) ? config.apiUrls[origin] : undefined;
  if (url === undefined) throw new Error('API URL not found');
  return url;
}
