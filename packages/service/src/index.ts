export { booleanFlag, commaList, EnvError, httpUrl, parseEnv, port, publicUrls, stackEnvShape } from './env.js';
export { fastifyOptions, redactUrl } from './fastify-options.js';
export { registerHealth } from './health.js';
export { echoRequestId } from './request-id.js';
export { serve } from './serve.js';
export { packagePath } from './package-path.js';
export { freePort } from './free-port.js';
export { hasUnstorableText, refuseUnstorableText } from './unstorable-text.js';
