import { z } from 'zod';

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

/**
 * The id of the `<script type="application/json">` the console server writes the same config into
 * when it serves the page, so the first paint does not wait for a request to /config.json.
 */
export const runtimeConfigElementId = 'runtime-config';

let loaded: RuntimeConfig | undefined;

/** The config written into the page, else the one /config.json answers (a host that only serves files). */
export async function loadRuntimeConfig(): Promise<RuntimeConfig> {
  const inline = document.getElementById(runtimeConfigElementId);
  const source = inline ? 'The config in the page' : '/config.json';
  const raw: unknown = inline ? JSON.parse(inline.textContent ?? '') : await fetchConfig();
  const result = runtimeConfigSchema.safeParse(raw);
  if (!result.success) throw new Error(`${source} is invalid: ${z.prettifyError(result.error)}`);
  loaded = result.data;
  return loaded;
}

async function fetchConfig(): Promise<unknown> {
  // An absolute URL, because outside a browser (tests) fetch has no base to resolve against.
  const response = await fetch(new URL('/config.json', window.location.href));
  if (!response.ok) throw new Error(`/config.json answered ${response.status} ${response.statusText}`);
  return response.json();
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
