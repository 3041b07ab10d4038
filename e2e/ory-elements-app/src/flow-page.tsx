import { Login, Recovery, Registration, Settings, Verification } from '@ory/elements-react/theme';
import { handleFlowError } from '@ory/client-fetch';
import { type ComponentProps, useEffect, useState } from 'react';
import type { AppConfig } from './config';

export type FlowKind = 'login' | 'registration' | 'verification' | 'recovery' | 'settings';

const fetchers = {
  login: (sdk: AppConfig['sdk'], id: string) => sdk.getLoginFlow({ id }),
  registration: (sdk: AppConfig['sdk'], id: string) => sdk.getRegistrationFlow({ id }),
  verification: (sdk: AppConfig['sdk'], id: string) => sdk.getVerificationFlow({ id }),
  recovery: (sdk: AppConfig['sdk'], id: string) => sdk.getRecoveryFlow({ id }),
  settings: (sdk: AppConfig['sdk'], id: string) => sdk.getSettingsFlow({ id }),
};

/**
 * One self-service screen, as Ory's docs wire it: without `?flow=` the browser goes through the
 * identity's `/self-service/<kind>/browser` (which redirects back here with a flow id, passing
 * `return_to`, `refresh` and `aal` on); with it, the flow is fetched and Elements renders it.
 * Fetch errors go through the SDK's handleFlowError, as Ory's examples do (restart, or follow
 * `redirect_browser_to`, e.g. to the second factor).
 */
export function FlowPage({ kind, config }: { kind: FlowKind; config: AppConfig }) {
  const [flow, setFlow] = useState<unknown>();
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const id = params.get('flow');
    const restart = () => {
      params.delete('flow');
      window.location.assign(`${config.identityUrl}/self-service/${kind}/browser?${params}`);
    };
    if (!id) return restart();
    fetchers[kind](config.sdk, id)
      .then(setFlow)
      .catch(handleFlowError({ onRestartFlow: restart, onValidationError: setFlow, onRedirect: (url) => window.location.assign(url) }));
  }, [kind, config]);

  if (!flow) return <p>Loading…</p>;
  // Elements is typed against its own copy of the SDK; the flow is the same JSON.
  switch (kind) {
    case 'login':
      return <Login flow={flow as ComponentProps<typeof Login>['flow']} config={config.elements} />;
    case 'registration':
      return <Registration flow={flow as ComponentProps<typeof Registration>['flow']} config={config.elements} />;
    case 'verification':
      return <Verification flow={flow as ComponentProps<typeof Verification>['flow']} config={config.elements} />;
    case 'recovery':
      return <Recovery flow={flow as ComponentProps<typeof Recovery>['flow']} config={config.elements} />;
    case 'settings':
      return <Settings flow={flow as ComponentProps<typeof Settings>['flow']} config={config.elements} />;
  }
}
