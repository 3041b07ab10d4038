import { setupServer } from 'msw/node';

/** Every test's network: the identity service's self-service API, mocked per test. */
export const server = setupServer();
