// `npm run bench`: boots the stack as `npm start` does and prints figures. Each benchmark is one
// file in this folder; bench/README.md keeps the figures measured on our 2-core machines.
import { startStack } from '../e2e/support/stack.js';
import { measureBundle } from './console-bundle.js';
import { measureHealth } from './health-latency.js';
import { measureIdentity } from './identity-latency.js';

// Load tests come from one address: lift identity's per-IP attempt limits for the run.
const stack = await startStack({ env: { IDENTITY_RATE_LIMIT_MULTIPLIER: '1000', LOG_LEVEL: 'warn' } });
try {
  await measureHealth([
    { name: 'api /healthz', url: `${stack.apiUrl}/healthz` },
    { name: 'identity /healthz', url: `${stack.identityUrl}/healthz` },
  ]);
  await measureIdentity(stack.identityUrl);
  await measureBundle(stack.consoleUrl);
} finally {
  await stack.stop();
}
