import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './fixture/schema.ts',
  out: './fixture/migrations',
});
