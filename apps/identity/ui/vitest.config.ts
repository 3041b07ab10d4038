import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

export default defineProject({
  plugins: [react()],
  test: {
    name: 'identity-ui',
    environment: 'jsdom',
    // The pages are served by identity itself, so the SDK's base path is the page's origin.
    environmentOptions: { jsdom: { url: 'http://localhost:4000/ui/settings' } },
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/testing/setup.ts'],
    isolate: false,
  },
});
