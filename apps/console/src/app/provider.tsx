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
  const [{ Notifications }, { default: classes }] = await Promise.all([
    import('@mantine/notifications'),
    import('./toasts.module.css'),
    import('@mantine/core/styles/Notification.layer.css'),
    import('@mantine/notifications/styles.layer.css'),
  ]);
  // Top-center, below the top bar: Mantine's bottom-right put the toast over the Save button it
  // answered (the alerts' Save, a modal's Save at 390 px). The 4000 ms and the limit of 5 stay
  // Mantine's defaults; the spec leaves all three open (§9).
  return { default: () => <Notifications position="top-center" classNames={{ root: classes.root }} /> };
});

function NotificationsOnDemand() {
  const { notifications, queue } = useNotifications();
  const [needed, setNeeded] = useState(false);
  if (!needed && notifications.length + queue.length > 0) setNeeded(true);
  if (!needed) return null;
  return (
    <Suspense fallback={null}>
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
