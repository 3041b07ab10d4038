#!/usr/bin/env node
// Bundles a service's entry (default src/server.ts) into dist/server.js with esbuild. Workspace
// packages (@meterway/*) export TypeScript source, so they are bundled in; every other package
// stays an import resolved from node_modules at run time.
// Usage, from a workspace folder: node ../../scripts/build-service.mjs [entry]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const entry = process.argv[2] ?? 'src/server.ts';

function dependenciesOf(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
}

const workspaceDirs = ['apps', 'packages'].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, group, entry.name)),
);
const external = [...new Set([root, ...workspaceDirs].flatMap(dependenciesOf))].filter((name) => !name.startsWith('@meterway/'));

await build({
  entryPoints: [entry],
  outfile: 'dist/server.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  sourcemap: true,
  external: [...external, ...external.map((name) => `${name}/*`)],
  logLevel: 'warning',
});
