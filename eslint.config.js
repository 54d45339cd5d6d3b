// ESLint for src/, test/ and scripts/: typescript-eslint's strict, type-checked rules (and the stylistic ones).
// A rule turned off or down here says why; a line-level disable must say why next to it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tap/**'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.mjs'],
    extends: [js.configs.recommended, ...tseslint.configs.strictTypeChecked, ...tseslint.configs.stylisticTypeChecked],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      // Template literals print numbers and booleans exactly as Kubernetes and the image expect them.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `_name` marks what a destructuring drops on purpose (e.g. `{ status: _status, ...rest }`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // `(x) => void f(x)`-style shorthands are clear enough; only statements returning void values are confusing.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Data shapes are written as `type` aliases throughout (unions and intersections need them anyway).
      '@typescript-eslint/consistent-type-definitions': ['error', 'type'],
    },
  },
  {
    // tsconfig.json holds src/ only; tsconfig.test.json (what `npm run typecheck` checks) holds src/, test/ and scripts/
    // with the same compiler options. One program for every file: a second one for src/ alone cost ESLint about a
    // seventh more time and 300 MB more memory.
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.mjs'],
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs'],
    rules: {
      // tap runs a subtest that `t.test(...)` starts in order and reports its failures itself; nothing awaits it.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: '@tapjs/test', name: ['test'] }] }],
      // Subtest callbacks are `async (t) => ...` throughout, and fakes (Secrets, transports, readers) are async to match the interface they stand in for.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // scripts/ are `// @ts-check`ed JavaScript: the core rules TypeScript already enforces are off there as in .ts files.
    ...tseslint.configs.eslintRecommended,
    files: ['scripts/**/*.mjs'],
  },
  {
    files: ['scripts/**/*.mjs'],
    rules: {
      // Their types are JSDoc (`@param`, `@returns`), which tsc checks; the rule only reads TypeScript annotations.
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
);
