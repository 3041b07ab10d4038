import type { FastifyInstance } from 'fastify';
import type { RuntimeConfig } from '../src/config/runtime-config';

/**
 * The page may only run its own scripts and talk to its own API and identity service. Mantine
 * writes its theme into <style> elements, hence 'unsafe-inline' for styles only. A feature that
 * loads a third-party script or frame (the payment provider) adds its origins here.
 */
export function contentSecurityPolicy(config: RuntimeConfig): string {
  const connect = new Set(["'self'", ...Object.values(config.apiUrls), config.identityUrl].map(origin));
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

function origin(url: string): string {
  return url.startsWith("'") ? url : new URL(url).origin;
}

export function registerSecurityHeaders(app: FastifyInstance, config: RuntimeConfig): void {
  const headers = {
    'content-security-policy': contentSecurityPolicy(config),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(headers);
  });
}
