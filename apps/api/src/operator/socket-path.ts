import { join, resolve } from 'node:path';

/**
 * The running api's operator socket on PGlite: beside the data directory's lock file
 * (`<DATA_DIR>/api.lock`), not inside `<DATA_DIR>/api`, which is PGlite's own PGDATA.
 */
export function operatorSocketPath(dataDir: string): string {
  return join(resolve(dataDir), 'api-operator.sock');
}

/** Unix socket paths are limited to 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
export const maxSocketPathBytes = 103;
