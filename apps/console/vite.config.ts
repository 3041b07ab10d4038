import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { type Connect, defineConfig, type Plugin, runnerImport } from 'vite';
import type * as consoleEnv from './server/env';
import type * as consolePage from './server/page';
import type { RuntimeConfig } from './src/config/runtime-config';

/**
 * `vite` and `vite preview` answer /config.json from the environment, as server/app.ts does; `vite`
 * also writes it into the page as the server does.
 */
function runtimeConfigPlugin(config: RuntimeConfig, configScript: string): Plugin {
  const body = JSON.stringify(config);
  const serveConfig = (middlewares: Connect.Server) => {
    middlewares.use('/config.json', (request, response) => {
      response.setHeader('content-type', 'application/json');
      response.setHeader('cache-control', 'no-store');
      response.end(body);
    });
  };
  return {
    name: 'meterway-runtime-config',
    configureServer: (server) => serveConfig(server.middlewares),
    configurePreviewServer: (server) => serveConfig(server.middlewares),
    transformIndexHtml: (html) => html.replace('</head>', `${configScript}</head>`),
  };
}

/**
 * Writes .br and .gz beside each hashed asset; the server sends them to browsers that accept them,
 * so nothing is compressed per request.
 */
function precompressPlugin(): Plugin {
  const brotli = promisify(brotliCompress);
  const gzipAsync = promisify(gzip);
  let assetsDir = '';
  return {
    name: 'meterway-precompress',
    apply: 'build',
    configResolved: (config) => {
      assetsDir = resolve(config.root, config.build.outDir, config.build.assetsDir);
    },
    closeBundle: async () => {
      const files = (await readdir(assetsDir)).filter((file) => /\.(js|css|svg)$/.test(file));
      await Promise.all(
        files.map(async (file) => {
          const content = await readFile(join(assetsDir, file));
          if (content.length < 1024) return;
          await writeFile(join(assetsDir, `${file}.br`), await brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
          await writeFile(join(assetsDir, `${file}.gz`), await gzipAsync(content, { level: 9 }));
        }),
      );
    },
  };
}

/**
 * provider.tsx loads the toast container with `import('@mantine/notifications')`, but the entry
 * imports that same module statically (for `notifications.show`), which would put the whole
 * package in the entry. The dynamic import gets a module of its own instead, so the container,
 * its drag, transition and scroll-lock code load with the first toast.
 */
function notificationsOnDemandPlugin(): Plugin {
  const container = '\0meterway:notifications-container';
  return {
    name: 'meterway-notifications-on-demand',
    enforce: 'pre',
    resolveId: (source, importer, options) => (source === '@mantine/notifications' && options.kind === 'dynamic-import' ? container : undefined),
    load: (id) => (id === container ? "export { Notifications } from '@mantine/notifications';" : undefined),
  };
}

/**
 * React Router's package exports only its development build, whose dev-only warnings run on every
 * render; the production build beside it is the same code without them.
 */
function reactRouterProduction() {
  const production = join(dirname(createRequire(import.meta.url).resolve('react-router/package.json')), 'dist/production');
  return [
    { find: /^react-router$/, replacement: join(production, 'index.mjs') },
    { find: /^react-router\/dom$/, replacement: join(production, 'dom-export.mjs') },
  ];
}

export default defineConfig(async ({ command }) => {
  const build = {
    outDir: 'dist/public',
    emptyOutDir: true,
    // The console server reads it to name each route's chunks in the page (server/page.ts).
    manifest: true,
    rolldownOptions: {
      output: {
        // Left to itself Rolldown cuts /login into 35 files, and each costs a request on a slow
        // network. Everything the entry needs becomes one file, and /login's screen and layout
        // with all they import another; the signed-in screens share the latter's form and
        // identity code.
        codeSplitting: {
          groups: [
            { name: 'initial', tags: ['$initial' as const], priority: 2 },
            { name: 'login', test: /src[\\/]app[\\/]routes[\\/](public-layout|login)\.tsx$/, priority: 1 },
          ],
        },
      },
    },
  };
  const plugins = [react(), notificationsOnDemandPlugin()];
  // A build is the same for every environment; only the dev and preview servers read it.
  if (command === 'build') return { plugins: [...plugins, precompressPlugin()], build, resolve: { alias: reactRouterProduction() } };

  // The environment schema imports TypeScript from a workspace package, which Vite's default
  // config loader hands to Node untransformed; runnerImport transforms it as the dev server would.
  const serverModule = (name: string) => fileURLToPath(new URL(`./server/${name}.ts`, import.meta.url));
  const [{ module: env }, { module: page }] = await Promise.all([
    runnerImport<typeof consoleEnv>(serverModule('env')),
    runnerImport<typeof consolePage>(serverModule('page')),
  ]);
  const config = env.loadConsoleConfig();
  const listen = { host: config.host, port: config.port, strictPort: true };
  const runtimeConfig = runtimeConfigPlugin(config.runtimeConfig, page.configScript(config.runtimeConfig));
  return { plugins: [...plugins, runtimeConfig], server: listen, preview: listen, build };
});
