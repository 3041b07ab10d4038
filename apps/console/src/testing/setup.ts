import '@testing-library/jest-dom/vitest';
import { format } from 'node:util';
import { notifications } from '@mantine/notifications';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { stubBrowserForMantine } from '@meterway/ui-kit/testing';
import { setRuntimeConfig } from '../config/runtime-config';
import { testRuntimeConfig } from './runtime-config';
import { server } from './msw-server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

// A console.error is a bug (a React warning, an unhandled failure): it fails the test.
let consoleErrors: string[] = [];
beforeEach(() => {
  consoleErrors = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    consoleErrors.push(format(...args));
  });
  setRuntimeConfig(testRuntimeConfig);
});
afterEach(() => {
  cleanup();
  // Mantine keeps toasts in a module-level store; without this they would outlive their test.
  notifications.clean();
  server.resetHandlers();
  vi.restoreAllMocks();
  if (consoleErrors.length > 0) throw new Error(`console.error was called:\n${consoleErrors.join('\n')}`);
});

// The server tests run without a window.
if (typeof window !== 'undefined') stubBrowserForMantine();
