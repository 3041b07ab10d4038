import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * PGlite is a single-process database: a second process opening the same directory corrupts it.
 * A pid file next to the data refuses that with a clear message instead. A lock whose process is
 * gone (a crash, SIGKILL) is taken over. The same process opening the directory twice is refused too.
 */
export function lockDataDir(dir: string): () => void {
  const lockFile = `${dir}.lock`;
  const owner = readOwner(lockFile);
  if (owner !== undefined && isAlive(owner)) {
    throw new Error(
      `The data directory ${dir} is in use by process ${owner}. PGlite allows one process per directory: ` +
        'stop that process, or use another DATA_DIR, or set DATABASE_URL to use Postgres.',
    );
  }
  writeFileSync(lockFile, String(process.pid));
  return () => {
    if (readOwner(lockFile) === process.pid) rmSync(lockFile, { force: true });
  };
}

function readOwner(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
