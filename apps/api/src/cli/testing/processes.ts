import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createDb, type Database } from '@meterway/db';
import { freePort, packagePath } from '@meterway/service';
import { eq, sql } from 'drizzle-orm';
import { migrations, schema } from '../../db/index.js';

const repositoryRoot = packagePath(import.meta.url, '..', '..');
const source = (file: string) => packagePath(import.meta.url, 'src', file);

/** The environment every child starts from: this one minus what would point it elsewhere. */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: '', SYSTEM_ADMIN_EMAILS: '', LOG_LEVEL: 'warn', ...env };
}

/** Runs `admin.ts` as `npm run admin` does (a process of its own), from the repository root. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', source('cli/admin.ts'), ...args], { cwd: repositoryRoot, env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The api's server.ts in a process of its own, as `npm start` runs it; resolves once /healthz answers. */
export async function startApi(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', source('server.ts')], {
    cwd: repositoryRoot,
    env: childEnv({ API_PORT: String(port), ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the api exited: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the api did not start: ${stderr}`);
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    pid: child.pid,
    /** Sends the signal and resolves with the exit code (null when killed by the signal). */
    stop: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export type Api = Awaited<ReturnType<typeof startApi>>;

/** A person as the first console sign-in leaves one, with an organisation of their own. */
export async function insertPerson(db: Database, email: string): Promise<void> {
  const organizationId = randomUUID();
  await db.insert(schema.organizations).values({ id: organizationId, name: 'Test organisation' });
  const personId = randomUUID();
  await db.insert(schema.persons).values({ id: personId, identityId: randomUUID(), email, organizationId });
  await db.insert(schema.memberships).values({ organizationId, personId, role: 'owner' });
}

export async function readSystemAdmin(db: Database, email: string): Promise<boolean | undefined> {
  const [row] = await db
    .select({ systemAdmin: schema.persons.systemAdmin })
    .from(schema.persons)
    .where(eq(sql`lower(${schema.persons.email})`, email.toLowerCase()));
  return row?.systemAdmin;
}

/** Opens a PGlite DATA_DIR in this process (nobody else may hold it), runs `work`, closes it again. */
export async function withDataDir<T>(dataDir: string, work: (db: Database) => Promise<T>): Promise<T> {
  const handle = await createDb({ schema, service: 'api', dataDir, databaseUrl: undefined });
  try {
    await handle.migrate(migrations);
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

export function uniqueEmail(name: string): string {
  return `${name}-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}@Example.com`;
}
