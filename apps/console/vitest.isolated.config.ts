import { defineProject } from 'vitest/config';
import base, { mockingTests } from './vitest.config.ts';

/** The console's tests that mock a module, each file in a fresh module graph. */
export default defineProject({ ...base, test: { ...base.test, name: 'console-isolated', include: mockingTests, exclude: [], isolate: true } });
