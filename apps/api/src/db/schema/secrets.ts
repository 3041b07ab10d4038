import { secretsTable } from '@meterway/db';
import { appSchema } from './app-schema.js';

/** The key that signs page tokens when API_SECRET is not set; made once per database. */
export const secrets = secretsTable(appSchema);
