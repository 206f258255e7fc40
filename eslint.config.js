// Lint rules for every project: ESLint's and typescript-eslint's recommended sets, without the
// type-aware ones (they need a TypeScript program per project: four times the time on two cores,
// and their main finding, node:test's describe/it promises, is noise). Formatting is Prettier's:
// eslint-config-prettier goes last so it turns off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `const { secret: _secret, ...rest } = value` drops a field on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Validators match control characters on purpose, to refuse them.
      'no-control-regex': 'off',
    },
  },
  {
    // CommonJS: require() is the import, and the top level is the module's function scope.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', parserOptions: { ecmaFeatures: { globalReturn: true } } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
