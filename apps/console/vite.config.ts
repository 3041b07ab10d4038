import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { type Connect, defineConfig, type Plugin, runnerImport } from 'vite';
import type * as consoleEnv from './server/env';
import type { RuntimeConfig } from './src/config/runtime-config';

/** `vite` and `vite preview` answer /config.json from the environment, as server/app.ts does. */
function runtimeConfigPlugin(config: RuntimeConfig): Plugin {
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
      assetsDir = join(config.root, config.build.outDir, config.build.assetsDir);
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

export default defineConfig(async ({ command }) => {
  const build = { outDir: 'dist/public', emptyOutDir: true };
  // A build is the same for every environment; only the dev and preview servers read it.
  if (command === 'build') return { plugins: [react(), precompressPlugin()], build };

  // The environment schema imports TypeScript from a workspace package, which Vite's default
  // config loader hands to Node untransformed; runnerImport transforms it as the dev server would.
  const envModule = fileURLToPath(new URL('./server/env.ts', import.meta.url));
  const { module } = await runnerImport<typeof consoleEnv>(envModule);
  const config = module.loadConsoleConfig();
  const listen = { host: config.host, port: config.port, strictPort: true };
  return { plugins: [react(), runtimeConfigPlugin(config.runtimeConfig)], server: listen, preview: listen, build };
});
