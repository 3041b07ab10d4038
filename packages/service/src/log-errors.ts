import { err as serializeError, type SerializedError } from 'pino-std-serializers';

// A failed query's error carries its parameters (a key value, an e-mail, a token hash): the ORM
// writes them into the message (and so the stack) after "params:", and keeps them as `params`.
const queryParams = /\nparams: [\s\S]*?(?=\n {4}at |\ncaused by: |$)/g;

/** Every message and stack in a serialized error, causes included, without query parameters; no `params` field. */
function scrubbed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(queryParams, '\nparams: [redacted]');
  if (Array.isArray(value)) return value.map(scrubbed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => name !== 'params')
      .map(([name, inner]) => [name, scrubbed(inner)]),
  );
}

/** pino's error serializer, with the parameters of failed queries left out (logs never carry secrets, also when the database fails). */
export const serializeLoggedError = (error: Error): SerializedError => scrubbed(serializeError(error)) as SerializedError;
