import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { loadConfig } from './config';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

try {
  const config = await loadConfig();
  createRoot(container).render(
    <StrictMode>
      <App config={config} />
    </StrictMode>,
  );
} catch (error) {
  // Nothing can work without the config; say so plainly instead of leaving a blank page.
  console.error(error);
  container.textContent = 'This page could not load its configuration. Please reload the page.';
}
