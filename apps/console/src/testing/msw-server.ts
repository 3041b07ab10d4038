import { setupServer } from 'msw/node';
import { alertsHandlers } from './alerts-handlers';
import { autoTopUpHandlers } from './auto-top-up-handlers';
import { creditsHandlers } from './credits-handlers';

/**
 * Every test's network; feature handlers are added here as features land. The dashboard always
 * loads its alert settings and auto top-up, and every signed-in screen the payment config (the sandbox, in development).
 */
export const server = setupServer(alertsHandlers.get(), autoTopUpHandlers.get(), creditsHandlers.paymentConfig());
