import { secretsTable } from '@meterway/db';
import { identitySchema } from './identity-schema.js';

/**
 * The HMAC key for one-time codes when IDENTITY_SECRET is not set: made once, shared by every
 * instance on this database. Setting IDENTITY_SECRET keeps the key out of the database.
 */
export const secrets = secretsTable(identitySchema);
