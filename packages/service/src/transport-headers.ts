import type { FastifyInstance } from 'fastify';

/**
 * Headers every response of a service carries, JSON included: `nosniff`, and, when the service is
 * served over https (its public URL says so), HSTS for a year with subdomains, so a browser never
 * reaches it over plain http again.
 */
export function transportSecurityHeaders(app: FastifyInstance, publicUrl: string): void {
  const hsts = publicUrl.startsWith('https://');
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (hsts) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    done();
  });
}
