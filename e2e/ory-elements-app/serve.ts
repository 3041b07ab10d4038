import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { build } from 'vite';

const root = import.meta.dirname;
const dist = join(root, 'dist');
const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** Builds the Ory Elements app with vite (as an integrator would ship it). */
export async function buildElementsApp(): Promise<void> {
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'error' });
}

/**
 * Serves the built app on `port` as a static host would: files from dist/, index.html for every
 * route (the app routes client side), and /config.json naming the identity it talks to.
 */
export async function serveElementsApp(port: number, identityUrl: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/config.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ identityUrl }));
      return;
    }
    const file = path.startsWith('/assets/') ? join(dist, normalize(path).replace(/^(\.\.[/\\])+/, '')) : join(dist, 'index.html');
    readFile(file).then(
      (content) => response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(content),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
