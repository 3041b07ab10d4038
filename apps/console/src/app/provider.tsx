import { MantineProvider } from '@mantine/core';
import { useNotifications } from '@mantine/notifications';
import { cssVariablesResolver, theme } from '@meterway/ui-kit';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useState } from 'react';
import { createQueryClient } from '../lib/query-client';

type AppProviderProps = {
  children: ReactNode;
  queryClient?: QueryClient;
  /** 'test' turns off Mantine's transitions and portals. */
  env?: 'default' | 'test';
};

// The toast container (with its portal, drag and transition code, and its styles) is a tenth of
// what /login would load, and most visits never show a toast: it is fetched with the first one.
const Notifications = lazy(async () => {
  const [{ Notifications }] = await Promise.all([
    import('@mantine/notifications'),
    import('@mantine/core/styles/Notification.layer.css'),
    import('@mantine/notifications/styles.layer.css'),
  ]);
  return { default: Notifications };
});

function NotificationsOnDemand() {
  const { notifications, queue } = useNotifications();
  const [needed, setNeeded] = useState(false);
  if (!needed && notifications.length + queue.length > 0) setNeeded(true);
  if (!needed) return null;
  return (
    <Suspense fallback={null}>
      {/* Mantine's defaults are kept (bottom-right, 4000 ms, at most 5): the spec does not override them (§9). */}
      <Notifications />
    </Suspense>
  );
}

export function AppProvider({ children, queryClient, env = 'default' }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} env={env}>
      <NotificationsOnDemand />
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </MantineProvider>
  );
}
