// One lint setup for the whole workspace: TypeScript rules and hooks rules for React. The
// architecture rules of STYLE.md (arrows point one way, no cycles) live in .dependency-cruiser.cjs.
import js from '@eslint/js';
import checkFile from 'eslint-plugin-check-file';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const consoleSrc = 'apps/console/src';

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', 'data/', 'reports/', '**/*.d.ts', '**/migrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
      // Prettier (npm run format) wraps code at 160; what it cannot wrap, comments, must fit too.
      'max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // STYLE rule 15: kebab-case file names (middle parts like .test and .config are checked apart)
    // and named exports only, so a thing has one name wherever it is imported.
    plugins: { 'check-file': checkFile },
    rules: {
      'check-file/filename-naming-convention': ['error', { '**/*.{ts,tsx,js,mjs,cjs}': 'KEBAB_CASE' }, { ignoreMiddleExtensions: true }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use a named export.' },
        { selector: "ExportSpecifier[exported.name='default']", message: 'Use a named export.' },
      ],
    },
  },
  {
    // The tools load these configs by their default export.
    files: ['eslint.config.js', '**/vite.config.ts', '**/vitest.config.ts', '**/vitest.*.config.ts', '**/drizzle.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['scripts/**', 'bench/**', 'e2e/**', '**/*.config.{js,ts}', '.ci/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Tests read loosely typed JSON bodies (Kratos flows, problem details) to assert on them.
    files: ['**/*.test.{ts,tsx}', '**/testing/**', 'e2e/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: [`${consoleSrc}/**/*.{ts,tsx}`, 'apps/identity/ui/src/**/*.{ts,tsx}', 'packages/ui-kit/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Services: routes → domain → db; domain is plain code and never imports the web framework.
    files: ['apps/api/src/domain/**', 'apps/identity/src/domain/**', 'apps/identity/src/flows/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['fastify', '@fastify/*'], message: 'Domain code stays free of Fastify.' }] }],
    },
  },
);
