import { checkoutSessionResponseSchema } from '@meterway/contracts';
import { z } from 'zod';
import type { SetupSession } from './api/create-payment-method-session';

const stateSchema = z.object({ setupSession: checkoutSessionResponseSchema });

/** The history state the card form opens with. */
export const setupSessionState = (setupSession: SetupSession) => ({ setupSession });

/** The setup session the card form was opened with, if the history entry carries one. */
export const setupSessionOf = (state: unknown): SetupSession | undefined => {
  const parsed = stateSchema.safeParse(state);
  return parsed.success ? parsed.data.setupSession : undefined;
};
