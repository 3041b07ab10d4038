import { uuid } from 'drizzle-orm/pg-core';
import { organizations } from './people.js';
import { publishableKeys } from './publishable-keys.js';

/** The organisation and the publishable key a gateway call's row belongs to; fresh builders for each table. */
export const keyOwnerColumns = () => ({
  organizationId: uuid('organization_id')
    .notNull()
    .references(() => organizations.id),
  publishableKeyId: uuid('publishable_key_id')
    .notNull()
    .references(() => publishableKeys.id),
});
