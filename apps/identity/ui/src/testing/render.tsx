import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { App } from '../app';

export const testConfig = { consoleUrl: 'http://localhost:3000' };

/** Renders the app at `url` (path, query and hash) in Mantine's test mode. */
export function renderPage(url: string) {
  window.history.replaceState(null, '', url);
  const user = userEvent.setup();
  return { ...render(<App config={testConfig} env="test" />), user };
}

/**
 * Replaces window.location with one whose assign() is a mock, so a test can see where the page
 * navigates without jsdom trying to load it. Everything else reads the real location.
 */
export function mockNavigation() {
  const real = window.location;
  const assign = vi.fn<(url: string) => void>();
  vi.stubGlobal('location', {
    get href() {
      return real.href;
    },
    get origin() {
      return real.origin;
    },
    get pathname() {
      return real.pathname;
    },
    get search() {
      return real.search;
    },
    get hash() {
      return real.hash;
    },
    assign,
    replace: assign,
    reload: vi.fn(),
  });
  return assign;
}
