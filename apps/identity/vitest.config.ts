import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'identity', include: ['src/**/*.test.ts'], isolate: false, unstubEnvs: true, testTimeout: 30_000 } });
