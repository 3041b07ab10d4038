import { randomUUID } from 'node:crypto';
import { type FastifyServerOptions, LogController } from 'fastify';
import { serializeLoggedError } from './log-errors.js';
import { fastifyTrustProxy, type TrustProxy } from './trust-proxy.js';

/** Where pino writes each JSON line. */
export type LogStream = { write: (line: string) => void };

const incomingRequestId = /^[\w.:-]{1,64}$/;

/** Query parameters that carry secrets (logout and recovery tokens, e-mailed codes, checkout client secrets) never reach a log. */
const secretParams = /([?&](?:token|code|password|logout_token|client_secret)=)[^&#]*/gi;
export const redactUrl = (url: string) => url.replace(secretParams, '$1[redacted]');

/**
 * Options every Meterway Fastify instance is created with: pino JSON logs at the configured
 * level, each line of a request carrying its id. A well-formed `x-request-id` from a proxy is kept
 * so a request can be followed across services; anything else gets a fresh UUID. X-Forwarded-For
 * counts only from the proxies `trustProxy` (TRUST_PROXY) names; by default `request.ip` is the
 * socket's peer. Lines go to stdout unless `logStream` takes them (the tests that read the log).
 */
export function fastifyOptions(logLevel: string, trustProxy: TrustProxy = false, logStream?: LogStream): FastifyServerOptions {
  return {
    logger: {
      level: logLevel,
      ...(logStream ? { stream: logStream } : {}),
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip }),
        err: serializeLoggedError,
      },
    },
    requestIdHeader: false,
    // Health probes arrive every few seconds; their request lines would drown the rest.
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: (request) => request.url === '/healthz',
    }),
    genReqId: (request) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && incomingRequestId.test(header) ? header : randomUUID();
    },
    // Fastify 5 closes idle keep-alive sockets on close(); in-flight requests still finish.
    forceCloseConnections: 'idle',
    trustProxy: fastifyTrustProxy(trustProxy),
  };
}
