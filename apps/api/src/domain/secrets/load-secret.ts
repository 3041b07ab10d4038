import { randomBytes } from 'node:crypto';
import { type Database, loadStoredSecret } from '@meterway/db';
import { secrets } from '../../db/schema/index.js';

/** The api's signing key (page tokens): API_SECRET when set; otherwise one made once per database. */
export const loadSecret = (db: Database, configured: string | undefined): Promise<string> =>
  loadStoredSecret(db, { table: secrets, name: 'signing', configured, generate: () => randomBytes(32).toString('base64url'), service: 'api' });
