// One lint setup for the whole workspace: TypeScript rules, hooks rules for React, and the
// architecture rules of STYLE.md — arrows point one way and there are no import cycles.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const consoleSrc = 'apps/console/src';
const featureNames = ['auth', 'keys', 'credits', 'checkout', 'usage', 'admin', 'feedback'];

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', 'data/', 'reports/', '**/*.d.ts', '**/migrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ noWarnOnMultipleProjects: true, project: ['apps/*/tsconfig.json', 'packages/*/tsconfig.json', 'e2e/tsconfig.json', 'bench/tsconfig.json'] })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['scripts/**', 'bench/**', 'e2e/**', '**/*.config.{js,ts}', '.ci/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: [`${consoleSrc}/**/*.{ts,tsx}`],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Console: app → features → components/lib/config; a feature never imports another feature.
    files: [`${consoleSrc}/**/*.{ts,tsx}`],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...featureNames.map((feature) => ({
              target: `./${consoleSrc}/features/${feature}`,
              from: `./${consoleSrc}/features`,
              except: [`./${feature}`],
              message: 'A feature never imports another feature; compose them in app/.',
            })),
            {
              target: [`./${consoleSrc}/features`, `./${consoleSrc}/components`, `./${consoleSrc}/lib`, `./${consoleSrc}/config`],
              from: `./${consoleSrc}/app`,
              message: 'Arrows point one way: only app/ imports app/.',
            },
            {
              target: [`./${consoleSrc}/components`, `./${consoleSrc}/lib`, `./${consoleSrc}/config`],
              from: `./${consoleSrc}/features`,
              message: 'Shared code never imports a feature.',
            },
          ],
        },
      ],
    },
  },
  {
    // Services: routes → domain → db; domain is plain code and never imports the web framework.
    files: ['apps/api/src/domain/**', 'apps/identity/src/flows/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['fastify', '@fastify/*'], message: 'Domain code stays free of Fastify.' }] }],
    },
  },
  {
    files: ['apps/api/src/**', 'apps/identity/src/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './apps/api/src/domain', from: './apps/api/src/routes', message: 'Arrows point one way: routes → domain → db.' },
            { target: './apps/api/src/db', from: ['./apps/api/src/routes', './apps/api/src/domain'], message: 'Arrows point one way: routes → domain → db.' },
            { target: './apps/identity/src/db', from: ['./apps/identity/src/routes', './apps/identity/src/flows'], message: 'Arrows point one way.' },
            { target: './apps/api/src', from: './apps/identity/src', message: 'Services talk over HTTP, never by import.' },
            { target: './apps/identity/src', from: './apps/api/src', message: 'Services talk over HTTP, never by import.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/**'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [{ target: './packages', from: './apps', message: 'Packages never import apps.' }] }],
    },
  },
);
