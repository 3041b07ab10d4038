import { MantineProvider } from '@mantine/core';
import { cssVariablesResolver, theme } from '@meterway/ui-kit';
import type { UiConfig } from './config';
import { LoginPage } from './pages/login-page';
import { NotFoundPage } from './pages/not-found-page';
import { SettingsPage } from './pages/settings-page';

type AppProps = {
  config: UiConfig;
  /** 'test' turns off Mantine's transitions and portals. */
  env?: 'default' | 'test';
};

/** Two pages, chosen by path; every other step of a flow is a full page load through the server. */
export function App({ config, env = 'default' }: AppProps) {
  const path = window.location.pathname.replace(/\/+$/, '');
  const Page = path === '/ui/settings' ? SettingsPage : path === '/ui/login' ? LoginPage : NotFoundPage;
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} env={env}>
      <Page consoleUrl={config.consoleUrl} />
    </MantineProvider>
  );
}
