// The three parts `npm start` runs, where their sources and bundles are, and how each is started.
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;

const port = (name, fallback) => Number(process.env[name] || fallback);

export function services({ dev }) {
  const urls = {
    identity: process.env.IDENTITY_URL || `http://localhost:${port('IDENTITY_PORT', 4000)}`,
    api: process.env.API_URL || `http://localhost:${port('API_PORT', 8080)}`,
    console: process.env.CONSOLE_URL || `http://localhost:${port('CONSOLE_PORT', 3000)}`,
  };
  const local = (name, envName, fallback) => `http://127.0.0.1:${port(envName, fallback)}`;
  return [
    {
      name: 'identity',
      dir: join(root, 'apps/identity'),
      inputs: ['src', 'ui', 'package.json'],
      output: 'dist/server.js',
      url: urls.identity,
      healthUrl: `${local('identity', 'IDENTITY_PORT', 4000)}/healthz`,
      command: dev ? ['npx', 'tsx', 'watch', 'src/server.ts'] : ['node', '--enable-source-maps', 'dist/server.js'],
    },
    {
      name: 'api',
      dir: join(root, 'apps/api'),
      inputs: ['src', 'package.json'],
      output: 'dist/server.js',
      url: urls.api,
      healthUrl: `${local('api', 'API_PORT', 8080)}/healthz`,
      command: dev ? ['npx', 'tsx', 'watch', 'src/server.ts'] : ['node', '--enable-source-maps', 'dist/server.js'],
    },
    {
      name: 'console',
      dir: join(root, 'apps/console'),
      inputs: ['src', 'server', 'index.html', 'vite.config.ts', 'package.json'],
      output: 'dist/server.js',
      url: urls.console,
      healthUrl: dev ? `${local('console', 'CONSOLE_PORT', 3000)}/config.json` : `${local('console', 'CONSOLE_PORT', 3000)}/healthz`,
      command: dev ? ['npx', 'vite'] : ['node', '--enable-source-maps', 'dist/server.js'],
    },
  ];
}

/** Shared workspace packages every service bundles in: a change there makes every bundle stale. */
export const sharedInputs = ['packages/db/src', 'packages/service/src', 'packages/contracts/src', 'packages/ui-kit/src', 'package-lock.json'].map((path) =>
  join(root, path),
);
