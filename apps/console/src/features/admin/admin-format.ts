import type { Feedback } from '@meterway/contracts';

export const feedbackTypeLabels: Record<Feedback['type'], string> = {
  bug: 'Bug',
  feature_request: 'Feature request',
  question: 'Question',
  key_deletion: 'Key deletion',
  other: 'Other',
};
