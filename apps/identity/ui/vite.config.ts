import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Resolved from this file rather than the working directory, so `vite build --config ui/vite.config.ts`
// works from anywhere. No node: imports: this folder is typechecked with browser libs only.
const root = decodeURIComponent(new URL('.', import.meta.url).pathname);

/** Identity's hosted pages; src/routes/hosted-ui.ts serves the build under /ui/. */
export default defineConfig({
  root,
  base: '/ui/',
  plugins: [react()],
  build: { outDir: '../dist/ui', emptyOutDir: true },
});
