import { resolve } from 'node:path';
import { EnvError, packagePath } from '@meterway/service';
import { AppError } from '../errors/app-error.js';
import { loadApiConfig } from '../env.js';
import { commands, UsageError, usage } from './commands.js';
import { OperatorError, operatorClient } from './operator-client.js';

/** `npm start` takes a relative DATA_DIR from the repository root whatever the cwd; so does the CLI. */
const repositoryRoot = packagePath(import.meta.url, '..', '..');

export type Output = { out: (text: string) => void; err: (text: string) => void };

const processOutput: Output = { out: (text) => process.stdout.write(`${text}\n`), err: (text) => console.error(text) };

/**
 * The admin CLI: runs one command, prints one line (or the problem) and returns the exit code,
 * 0 on success and 1 on any error.
 */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, output: Output = processOutput): Promise<number> {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    output.out(usage());
    return 0;
  }
  const command = name === undefined ? undefined : commands[name];
  if (!command) {
    output.err(`${name === undefined ? 'No command given.' : `Unknown command "${name}".`}\n\n${usage()}`);
    return 1;
  }
  let client: ReturnType<typeof operatorClient> | undefined;
  try {
    const config = loadApiConfig(env);
    client = operatorClient({ dataDir: resolve(repositoryRoot, config.dataDir), databaseUrl: config.databaseUrl });
    output.out(await command.run(args, { execute: client.execute, systemAdminEmails: config.systemAdminEmails }));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) output.err(`${error.message}\n\n${usage()}`);
    else if (error instanceof AppError || error instanceof OperatorError || error instanceof EnvError) output.err(error.message);
    else output.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 1;
  } finally {
    await client?.close();
  }
}
