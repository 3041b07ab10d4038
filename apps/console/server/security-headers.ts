import type { FastifyInstance } from 'fastify';
import type { RuntimeConfig } from '../src/config/runtime-config';

/**
 * The page may only run its own scripts and talk to its own API and identity service, plus Stripe's
 * origins for the embedded checkout (Stripe.js is only fetched when the api names the Stripe
 * provider; the origins are those Stripe documents for its CSP). Mantine writes its theme into
 * <style> elements, hence 'unsafe-inline' for styles only.
 */
export function contentSecurityPolicy(config: RuntimeConfig): string {
  const connect = new Set(["'self'", ...Object.values(config.apiUrls), config.identityUrl, 'https://api.stripe.com'].map(origin));
  return [
    "default-src 'self'",
    "script-src 'self' https://js.stripe.com",
    'frame-src https://js.stripe.com https://hooks.stripe.com',
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https://*.stripe.com",
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

export function securityHeaders(config: RuntimeConfig): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(config),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
}

export function registerSecurityHeaders(app: FastifyInstance, config: RuntimeConfig): void {
  const headers = securityHeaders(config);
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(headers);
  });
}
