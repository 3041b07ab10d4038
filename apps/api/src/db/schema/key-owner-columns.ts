import { foreignKey, type PgColumn, uuid } from 'drizzle-orm/pg-core';
import { publishableKeys } from './publishable-keys.js';

/**
 * The organisation and the publishable key a gateway call's row belongs to; fresh builders for each
 * table. The key is referred to with its organisation (keyOfOrganization), so a row's key is always
 * its organisation's and the schema distributes by organisation (docs/scaling.md). That foreign key
 * is the row's only one: the key's own row refers to the organisation, so a second key to
 * organizations would check nothing more, and every gateway call would pay for it (a row lock on
 * the organisation's row for each completion and hold written).
 */
export const keyOwnerColumns = () => ({
  organizationId: uuid('organization_id').notNull(),
  publishableKeyId: uuid('publishable_key_id').notNull(),
});

/** The foreign key from a row's (organization_id, publishable_key_id) to its key. */
export const keyOfOrganization = (name: string, table: { organizationId: PgColumn; publishableKeyId: PgColumn }) =>
  foreignKey({ name, columns: [table.organizationId, table.publishableKeyId], foreignColumns: [publishableKeys.organizationId, publishableKeys.id] });
