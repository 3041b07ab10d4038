export { createDb, fromPglite, fromPool } from './create-db.js';
export type { CreateDbOptions, Database, DbHandle, Schema } from './create-db.js';
export type { Migrations } from './migrate.js';
export { loadStoredSecret, type SecretsTable, secretsTable } from './stored-secret.js';
