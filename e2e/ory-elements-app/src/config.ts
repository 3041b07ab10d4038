import { Configuration, FrontendApi } from '@ory/client-fetch';
import type { OryClientConfiguration } from '@ory/elements-react';

/** Where the identity runs, told by the server that serves this app (known only once the stack is up). */
export async function loadConfig() {
  const { identityUrl } = (await (await fetch('/config.json')).json()) as { identityUrl: string };
  const app = window.location.origin;
  const elements: OryClientConfiguration = {
    sdk: { url: identityUrl },
    project: {
      name: 'Elements compatibility app',
      registration_enabled: true,
      verification_enabled: true,
      recovery_enabled: true,
      login_ui_url: `${app}/login`,
      registration_ui_url: `${app}/registration`,
      verification_ui_url: `${app}/verification`,
      recovery_ui_url: `${app}/recovery`,
      settings_ui_url: `${app}/settings`,
      default_redirect_url: `${app}/`,
      error_ui_url: `${app}/error`,
    },
  };
  const sdk = new FrontendApi(new Configuration({ basePath: identityUrl, credentials: 'include', headers: { Accept: 'application/json' } }));
  return { identityUrl, elements, sdk };
}

export type AppConfig = Awaited<ReturnType<typeof loadConfig>>;
