import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createDb } from '@meterway/db';
import { type ApiDb, migrations, schema } from '../db/index.js';
import { type OperationName, type OperationOutput, operations, runOperation } from '../operator/operations.js';
import { operatorSocketPath } from '../operator/socket-path.js';
import type { Execute } from './commands.js';
import { postOverSocket } from './socket-request.js';

/** A failure the CLI reports as it is (no stack): unreachable api, refused operation. */
export class OperatorError extends Error {}

export type OperatorTarget = {
  /** Absolute. */
  dataDir: string;
  databaseUrl: string | undefined;
  /** How long to keep knocking while an api holds the data directory but its socket is not up yet (it may be starting). */
  waitForApiMs?: number;
};

/**
 * Where the CLI's operations run. Postgres takes any number of clients, so the CLI connects by
 * itself. PGlite admits one process per data directory: the running api's operator socket if it
 * answers; otherwise the directory is opened here, which the lock allows only when no api holds
 * it. Nothing is opened before the first operation, so bad arguments open nothing.
 */
export function operatorClient(target: OperatorTarget): { execute: Execute; close: () => Promise<void> } {
  let handle: ApiDb | undefined;
  const socketPath = operatorSocketPath(target.dataDir);

  const execute: Execute = async (name, input) => {
    if (target.databaseUrl || handle) return runOperation((handle ??= await openDirect(target)).db, name, input);
    const deadline = Date.now() + (target.waitForApiMs ?? 10_000);
    for (;;) {
      const answer = await postOverSocket(socketPath, `/operator/${name}`, input);
      if (answer.reached) return readAnswer(name, answer.status, answer.body);
      const opened = await openPglite(target.dataDir);
      if (opened.ok) return runOperation((handle = opened.handle).db, name, input);
      if (Date.now() > deadline) {
        throw new OperatorError(
          `Nothing answers on ${socketPath}, yet ${opened.holder} holds the data directory ${join(target.dataDir, 'api')}. ` +
            'If it is an api, its log says why the operator socket is missing; restart it, or stop it and run this again.',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  return { execute, close: async () => handle?.close() };
}

async function openDirect(target: OperatorTarget): Promise<ApiDb> {
  const handle = await createDb({ schema, service: 'api', dataDir: target.dataDir, databaseUrl: target.databaseUrl, poolSize: 2 });
  try {
    await handle.migrate(migrations);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function openPglite(dataDir: string): Promise<{ ok: true; handle: ApiDb } | { ok: false; holder: string }> {
  // Opening creates the directory: a mistyped DATA_DIR must fail rather than start an empty database.
  if (!existsSync(join(dataDir, 'api'))) {
    throw new OperatorError(
      `No api data in ${join(dataDir, 'api')}: the api has never run with this DATA_DIR (a relative DATA_DIR is taken from the repository root).`,
    );
  }
  try {
    return { ok: true, handle: await openDirect({ dataDir, databaseUrl: undefined }) };
  } catch (error) {
    // packages/db's lock refuses a directory another live process holds, naming its pid.
    const holder = /in use by process (\d+)/.exec((error as Error).message);
    if (holder) return { ok: false, holder: `process ${holder[1]}` };
    throw error;
  }
}

function readAnswer<TName extends OperationName>(name: TName, status: number, body: unknown): OperationOutput<TName> {
  if (status === 200) return operations[name].output.parse(body) as OperationOutput<TName>;
  const detail = (body as { detail?: unknown } | null)?.detail;
  throw new OperatorError(typeof detail === 'string' ? detail : `The api answered ${status} to ${name}.`);
}
