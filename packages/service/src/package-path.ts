import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Resolves a path inside the package that holds `moduleUrl`. Services run both from source
 * (src/…) and bundled (dist/server.js), so files they ship beside the code, such as migrations,
 * are found from the package root rather than from the module's own depth.
 */
export function packagePath(moduleUrl: string, ...segments: string[]): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
  return join(dir, ...segments);
}
