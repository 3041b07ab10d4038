// /login paints with the styles of its own components only: Mantine's whole sheet is seven times
// as large and is parsed before anything shows. Every other screen loads the whole sheet with its
// module (router.tsx). The layer files keep all of Mantine below the app's own CSS, whichever
// loads last.
import '@mantine/core/styles/baseline.layer.css';
import '@mantine/core/styles/default-css-variables.layer.css';
import '@mantine/core/styles/global.layer.css';
import '@mantine/core/styles/UnstyledButton.layer.css';
import '@mantine/core/styles/Paper.layer.css';
import '@mantine/core/styles/Center.layer.css';
import '@mantine/core/styles/Stack.layer.css';
import '@mantine/core/styles/Group.layer.css';
import '@mantine/core/styles/Text.layer.css';
import '@mantine/core/styles/Title.layer.css';
import '@mantine/core/styles/Anchor.layer.css';
import '@mantine/core/styles/Code.layer.css';
import '@mantine/core/styles/Loader.layer.css';
import '@mantine/core/styles/Button.layer.css';
import '@mantine/core/styles/ActionIcon.layer.css';
import '@mantine/core/styles/CloseButton.layer.css';
import '@mantine/core/styles/Input.layer.css';
import '@mantine/core/styles/PasswordInput.layer.css';
import '@mantine/core/styles/Alert.layer.css';
import { StrictMode, startTransition } from 'react';
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
  // Evaluating the bundle is one long task already; building the router and the first render
  // start in a task of their own, so the browser can handle input in between.
  await new Promise((resolve) => setTimeout(resolve));
  const router = createBrowserRouter(routes);
  const root = createRoot(container);
  // As a transition the first render runs in slices of a few milliseconds, so a slow phone can
  // take a tap or a keystroke in between rather than after one long task.
  startTransition(() =>
    root.render(
      <StrictMode>
        <AppProvider>
          <RouterProvider router={router} />
        </AppProvider>
      </StrictMode>,
    ),
  );
} catch (error) {
  // Nothing can work without the config; say so plainly instead of leaving a blank page.
  console.error(error);
  container.textContent = 'The console could not load its configuration. Please reload the page.';
}
