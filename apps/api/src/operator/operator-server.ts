import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, rmSync } from 'node:fs';
import type { Database } from '@meterway/db';
import { fastifyOptions } from '@meterway/service';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { registerProblemJson } from '../plugins/problem-json.js';
import { type OperationName, operations, runOperation } from './operations.js';
import { maxSocketPathBytes } from './socket-path.js';

/**
 * The operator API: every entry of the operation table as `POST /operator/<name>`, on a Fastify
 * instance of its own that shares the api's database handle. It has no authentication because it
 * only ever listens on a Unix socket that only the api's own user can open (see startOperatorSocket).
 */
export async function createOperatorServer(deps: { db: Database; logLevel: string }): Promise<FastifyInstance> {
  const fastify = Fastify(fastifyOptions(deps.logLevel));
  const zod = fastify.withTypeProvider<ZodTypeProvider>();
  zod.setValidatorCompiler(validatorCompiler);
  zod.setSerializerCompiler(serializerCompiler);
  registerProblemJson(fastify);
  for (const name of Object.keys(operations) as OperationName[]) {
    const { input, output } = operations[name] as { input: z.ZodType; output: z.ZodType };
    zod.post(`/operator/${name}`, { schema: { body: input, response: { 200: output } } }, async (request) => {
      const result = await runOperation(deps.db, name, request.body as never);
      // The audit trail of operator actions is the api's log.
      request.log.info({ operation: name, input: request.body, result }, 'operator command');
      return result;
    });
  }
  return fastify;
}

/**
 * Serves the operator API on `socketPath` (mode 0600: only the api's user and root can connect)
 * and removes the socket file again on close. Call it only while holding the PGlite data
 * directory's lock: then any file at that path is a leftover of a crashed api and is replaced.
 * Returns undefined, with a warning in the log, when the socket cannot be opened; the api serves
 * its users regardless, and the admin CLI explains that it cannot reach it.
 */
export async function startOperatorSocket(deps: {
  db: Database;
  logLevel: string;
  socketPath: string;
  log: FastifyInstance['log'];
}): Promise<FastifyInstance | undefined> {
  const { socketPath, log } = deps;
  const unavailable = (reason: string) => {
    log.warn({ socketPath }, `operator socket not opened: ${reason}; \`npm run admin\` cannot reach this api while it runs`);
    return undefined;
  };
  // Bound under a name nobody can guess, narrowed to 0600, then moved into place, so no umask
  // ever leaves a moment in which another user could connect.
  const pending = `${socketPath}.${randomBytes(6).toString('hex')}`;
  if (Buffer.byteLength(pending) > maxSocketPathBytes) return unavailable(`${pending} is longer than ${maxSocketPathBytes} bytes (choose a shorter DATA_DIR)`);
  const server = await createOperatorServer(deps);
  server.addHook('onClose', async () => rmSync(socketPath, { force: true }));
  try {
    rmSync(socketPath, { force: true });
    await server.listen({ path: pending, listenTextResolver: () => `operator socket listening at ${socketPath}` });
    chmodSync(pending, 0o600);
    renameSync(pending, socketPath);
  } catch (error) {
    await server.close().catch(() => {});
    rmSync(pending, { force: true });
    return unavailable((error as Error).message);
  }
  return server;
}
