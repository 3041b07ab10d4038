import { feedbackCreatedSchema, type FeedbackInput } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// POST /bff/feedback with type key_deletion: the optional reason given when deleting a key.

export const sendKeyDeletionFeedback = (reason: string): Promise<{ id: string }> => {
  const body: FeedbackInput = { type: 'key_deletion', description: reason };
  return apiRequest('/bff/feedback', { method: 'POST', body, schema: feedbackCreatedSchema });
};

/**
 * Silent: the key is already deleted and the user told so; a lost optional reason is logged
 * rather than shown as a failure next to that success.
 */
export const useSendKeyDeletionFeedback = () => useMutation({ mutationFn: sendKeyDeletionFeedback, meta: { silent: true } });
