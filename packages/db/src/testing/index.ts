export { createTestDb, type TestDbHandle, type TestDbOptions } from './create-test-db.js';
export { setupTestDb, type TestDb } from './setup-test-db.js';
export { type PrivatePostgres, startPrivatePostgres } from './private-postgres.js';
export { type PgBouncer, pgBouncerInstalled, startPgBouncer } from './pgbouncer.js';
