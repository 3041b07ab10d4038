import '@testing-library/jest-dom/vitest';
import { notifications } from '@mantine/notifications';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { failOnConsoleError, stubBrowserForMantine } from '@meterway/ui-kit/testing';
import { setRuntimeConfig } from '../config/runtime-config';
import { testRuntimeConfig } from './runtime-config';
import { server } from './msw-server';

// A screen's first render waits for its lazily loaded module; on a loaded 2-core machine (CI runs
// every project at once, and this host's CPU is partly taken by others) that passed 1 s, then 3 s.
configure({ asyncUtilTimeout: 10_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

failOnConsoleError();
beforeEach(() => {
  setRuntimeConfig(testRuntimeConfig);
});
afterEach(() => {
  cleanup();
  // What a component put outside its container (recharts' measuring span) would be found by the next file's queries.
  if (typeof document !== 'undefined') document.body.replaceChildren();
  // Mantine keeps toasts in a module-level store; without this they would outlive their test.
  notifications.clean();
  // The organisation a tab shows (tab-organization.ts) is one tab's: each test is a new tab.
  if (typeof sessionStorage !== 'undefined') sessionStorage.clear();
  server.resetHandlers();
  vi.restoreAllMocks();
});

// The server tests run without a window.
if (typeof window !== 'undefined') stubBrowserForMantine();
