import { setupServer } from 'msw/node';

/** Every test's network; feature handlers are added here as features land. */
export const server = setupServer();
