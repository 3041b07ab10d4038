import { defineConfig } from 'vite';

/**
 * A third-party app built on Ory's own components, as an integrator would build it: the
 * compatibility e2e (specs/ory-elements-compat.e2e.test.ts) builds it and serves dist/ with a
 * /config.json naming the identity's URL. Vite's own JSX transform suffices (no dev server).
 */
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true },
});
