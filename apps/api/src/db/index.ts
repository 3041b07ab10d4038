import { type DbHandle, type Migrations } from '@meterway/db';
import { packagePath } from '@meterway/service';
import * as schema from './schema/index.js';

export { schema };
export type ApiDb = DbHandle<typeof schema>;
export const migrations: Migrations = {
  folder: packagePath(import.meta.url, 'src/db/migrations'),
  table: 'app_migrations',
  functions: packagePath(import.meta.url, 'src/db/functions'),
};
