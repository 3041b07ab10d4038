// Rebuilds a service only when a source file is newer than its bundle.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sharedInputs } from './services.mjs';

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

export function buildStale(service) {
  const output = join(service.dir, service.output);
  const built = existsSync(output) ? statSync(output).mtimeMs : 0;
  const inputs = [...service.inputs.map((input) => join(service.dir, input)), ...sharedInputs];
  if (Math.max(...inputs.map(newestMtime)) <= built) return;
  console.log(`[${service.name}] building…`);
  const result = spawnSync('npm', ['run', 'build'], { cwd: service.dir, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`[${service.name}] build failed`);
}
