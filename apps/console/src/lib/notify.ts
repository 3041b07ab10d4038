import { notifications } from '@mantine/notifications';
import { ApiError, genericErrorMessage } from './api-error';
import { logger } from './logger';

/** The toast titles of spec §8, word for word. */
export const notificationTitles = { error: 'Wooops!', success: 'Success!' } as const;

/** The text a toast shows for a failure: the error's own message (the §8 status text for an ApiError). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'string' && error) return error;
  return genericErrorMessage;
}

/** What is logged beside the toast: for an ApiError, the status, status text and body it carried. */
function errorDetail(error: unknown): unknown {
  return error instanceof ApiError ? { status: error.status, statusText: error.statusText, body: error.body, error } : error;
}

/**
 * The one door for failures (STYLE rule 8): a red 'Wooops!' toast with the message, the detail
 * logged. `message` overrides the text shown (e.g. 'Failed to delete publishable key').
 */
export function notifyError(error: unknown, message: string = errorMessage(error)): void {
  logger.warn(message, errorDetail(error));
  notifications.show({ color: 'red', title: notificationTitles.error, message });
}

/** A teal 'Success!' toast, raised where the action is called. */
export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', title: notificationTitles.success, message });
}

/**
 * What a query or mutation may say about its failures, in `meta`:
 * - `silent: true` → logged only, no toast (spec §8: list load failures are "logged only");
 * - `errorMessage` → the text logged, and shown instead of the error's own message; a function
 *   makes it from the failure (e.g. the api's own words for a refusal).
 */
export type NotifyMeta = { silent?: boolean; errorMessage?: string | ((error: unknown) => string) };

/** The QueryCache / MutationCache onError: every failure of TanStack Query comes through here. */
export function reportQueryError(error: unknown, meta: NotifyMeta | undefined): void {
  const { silent, errorMessage: message } = meta ?? {};
  const text = typeof message === 'function' ? message(error) : message;
  if (silent) {
    logger.warn(text ?? errorMessage(error), errorDetail(error));
    return;
  }
  notifyError(error, text ?? errorMessage(error));
}
