import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'api', include: ['src/**/*.test.ts'], isolate: false, testTimeout: 30_000 } });
