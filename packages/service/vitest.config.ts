import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'service', include: ['src/**/*.test.ts'], isolate: false } });
