import { type Database, loadStoredSecret } from '@meterway/db';
import { secrets } from '../db/schema/secrets.js';
import { randomAlphanumeric } from './tokens.js';

/** The HMAC key: IDENTITY_SECRET when set; otherwise one made once per database. */
export const loadSecret = (db: Database, configured: string | undefined): Promise<string> =>
  loadStoredSecret(db, { table: secrets, name: 'hmac', configured, generate: () => randomAlphanumeric(48), service: 'identity' });
