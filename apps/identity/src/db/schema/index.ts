export { identitySchema } from './identity-schema.js';
export { identities, credentials, verifiableAddresses, recoveryAddresses } from './identities.js';
export { sessions } from './sessions.js';
export { flows, flowCodes } from './flows.js';
export { rateLimits } from './rate-limits.js';
export { secrets } from './secrets.js';
export { courierMessages } from './courier.js';
