import type { feedbackTypes } from '@meterway/contracts';

export type FeedbackType = (typeof feedbackTypes)[number];

/** How each feedback type reads in the send form and the admin list. */
export const feedbackTypeLabels: Readonly<Record<FeedbackType, string>> = {
  bug: 'Bug report',
  feature_request: 'Feature request',
  question: 'Question',
  key_deletion: 'Key deletion',
  other: 'Other',
};
