import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { loadRuntimeConfig } from '../config/runtime-config';
import { AppProvider } from './provider';
import { routes } from './router';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

try {
  await loadRuntimeConfig();
  const router = createBrowserRouter(routes);
  createRoot(container).render(
    <StrictMode>
      <AppProvider>
        <RouterProvider router={router} />
      </AppProvider>
    </StrictMode>,
  );
} catch (error) {
  // Nothing can work without the config; say so plainly instead of leaving a blank page.
  console.error(error);
  container.textContent = 'The console could not load its configuration. Please reload the page.';
}
