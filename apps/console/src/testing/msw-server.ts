import { setupServer } from 'msw/node';
import { alertsHandlers } from './alerts-handlers';

/** Every test's network; feature handlers are added here as features land. The dashboard always loads its alert settings. */
export const server = setupServer(alertsHandlers.get());
