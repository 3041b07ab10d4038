import type { SecretKeyInput, SecretKeyScope } from '@meterway/contracts';
import { keyInputOf, type KeyFormValues, newKeyFormValues } from './key-form-schema';

/**
 * A secret key's form is the publishable key's without the allowed domains (issue #23): the same
 * fields, rules and body, less `allowedOrigins`; its scope is chosen beside the form on create.
 */

/** A server calls from one address: like the api, a new secret key has no per-address caps. */
export const newSecretKeyFormValues = (): KeyFormValues => ({ ...newKeyFormValues(), allowedDomains: [], requestsPerMinute: '', spendPerDay: '' });

/** PUT /bff/secret-keys/{secretKeyId}: the form's fields; a key's scope never changes. */
export const secretKeyUpdateOf = (values: KeyFormValues): Omit<SecretKeyInput, 'scope'> => {
  const { allowedOrigins: _allowedOrigins, ...fields } = keyInputOf(values);
  return fields;
};

/** POST /bff/secret-keys. */
export const secretKeyInputOf = (values: KeyFormValues, scope: SecretKeyScope): SecretKeyInput => ({ ...secretKeyUpdateOf(values), scope });

export const scopeTexts: Record<SecretKeyScope, { label: string; description: string }> = {
  gateway: { label: 'Gateway', description: 'Call models from your server (chat completions).' },
  admin: { label: 'Admin', description: 'Read usage and balance and manage publishable keys over the developer API.' },
};
