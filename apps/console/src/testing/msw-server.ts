import { setupServer } from 'msw/node';
import { alertsHandlers } from './alerts-handlers';
import { autoTopUpHandlers } from './auto-top-up-handlers';
import { creditsHandlers } from './credits-handlers';
import { secretKeysHandlers } from './secret-keys-handlers';

/**
 * Every test's network; feature handlers are added here as features land. The dashboard always
 * loads its alert settings and auto top-up, and every signed-in screen the payment config (the sandbox, in development);
 * a paid top-up's status reads what it came to (no debt paid, unless a test says otherwise).
 * The dashboard and the chat completions' key filter list the secret keys (issue #23): none, unless a test says otherwise.
 */
export const server = setupServer(
  alertsHandlers.get(),
  autoTopUpHandlers.get(),
  creditsHandlers.paymentConfig(),
  creditsHandlers.checkoutOutcome(),
  secretKeysHandlers.list(),
);
