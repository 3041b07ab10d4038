import { feedbackCreatedSchema, type FeedbackInput } from '@meterway/contracts';
import { mutationOptions, useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

/** POST /bff/feedback: what the signed-in user wants to tell us (Send feedback in the user menu). */
export const createFeedback = (input: FeedbackInput) => apiRequest('/bff/feedback', { method: 'POST', body: input, schema: feedbackCreatedSchema });

// Nothing to invalidate: the feedback list is an admin screen, loaded fresh when opened.
export const createFeedbackMutationOptions = () => mutationOptions({ mutationFn: createFeedback, meta: { errorMessage: 'Failed to send feedback' } });

export const useCreateFeedback = () => useMutation(createFeedbackMutationOptions());
