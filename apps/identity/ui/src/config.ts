// zod/mini: this loads before the first paint, and the full zod is several times larger.
import { z } from 'zod/mini';

/** What /ui/config.json holds; identity writes it from its environment, so one build serves all. */
const uiConfigSchema = z.object({ consoleUrl: z.url() });

export type UiConfig = z.infer<typeof uiConfigSchema>;

export async function loadConfig(): Promise<UiConfig> {
  const response = await fetch('/ui/config.json');
  if (!response.ok) throw new Error(`/ui/config.json answered ${response.status} ${response.statusText}`);
  const result = uiConfigSchema.safeParse(await response.json());
  if (!result.success) throw new Error(`/ui/config.json is invalid: ${z.prettifyError(result.error)}`);
  return { consoleUrl: result.data.consoleUrl.replace(/\/+$/, '') };
}
