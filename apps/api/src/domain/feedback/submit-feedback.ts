import { randomUUID } from 'node:crypto';
import type { feedbackTypes } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { feedback } from '../../db/schema/index.js';
import type { Viewer } from '../people/ensure-person.js';

/** A validated feedback form (contracts' feedbackInputSchema output). */
export type FeedbackSubmission = { type: (typeof feedbackTypes)[number]; description: string };

/** Stores what the viewer wrote, under the e-mail they are signed in with now. */
export async function submitFeedback(db: Database, viewer: Viewer, input: FeedbackSubmission): Promise<{ id: string }> {
  const id = randomUUID();
  await db.insert(feedback).values({ id, personId: viewer.personId, fromEmail: viewer.email, type: input.type, description: input.description });
  return { id };
}
