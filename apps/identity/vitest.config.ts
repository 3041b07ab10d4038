import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'identity', include: ['src/**/*.test.ts'], testTimeout: 30_000 } });
