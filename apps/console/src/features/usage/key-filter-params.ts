/**
 * Whose calls the chat completions page shows (spec §2's list parameters): one publishable key or
 * one secret key (issue #23), never both; neither for every key.
 */
export type UsageKeyFilter = { publishableKeyId?: string; secretKeyId?: string };

/** The filter as query parameters: the one key named, and nothing for none. */
export const keyFilterQuery = ({ publishableKeyId, secretKeyId }: UsageKeyFilter): UsageKeyFilter =>
  publishableKeyId ? { publishableKeyId } : secretKeyId ? { secretKeyId } : {};
