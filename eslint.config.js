// Lint rules for every project: ESLint's and typescript-eslint's recommended sets, without the
// type-aware ones (they need a TypeScript program per project: four times the time on two cores,
// and their main finding, node:test's describe/it promises, is noise). Formatting is Prettier's:
// eslint-config-prettier goes last so it turns off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { builtinRules } from 'eslint/use-at-your-own-risk';

// A function is read whole: at most 80 lines of code (blank and comment-only lines not counted).
const FUNCTION_LINES = { max: 80, skipBlankLines: true, skipComments: true };

// node:test's grouping callbacks: a describe (or it, test, hook) callback holds a list of cases, not a
// procedure, so its length is the number of cases. Every other function in a test file is bounded.
const TEST_CALLS = new Set(['describe', 'suite', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach']);
const calleeName = (callee) =>
  callee.type === 'Identifier'
    ? callee.name
    : callee.type === 'MemberExpression'
      ? callee.object.type === 'Identifier' && TEST_CALLS.has(callee.object.name)
        ? callee.object.name
        : callee.property.name
      : undefined;
const isTestCallback = (node) => node.parent?.type === 'CallExpression' && node.parent.callee !== node && TEST_CALLS.has(calleeName(node.parent.callee));
const coreFunctionLines = builtinRules.get('max-lines-per-function');
// The core rule, reading only sourceCode and options, with its reports of test callbacks dropped.
const functionLinesOutsideTestCallbacks = {
  meta: coreFunctionLines.meta,
  create: (context) =>
    coreFunctionLines.create({
      sourceCode: context.sourceCode,
      options: context.options,
      report: (descriptor) => (isTestCallback(descriptor.node) ? undefined : context.report(descriptor)),
    }),
};

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
      'max-lines-per-function': ['error', FUNCTION_LINES],
    },
  },
  {
    files: ['**/*.test.ts'],
    plugins: { house: { rules: { 'max-lines-per-function': functionLinesOutsideTestCallbacks } } },
    rules: { 'max-lines-per-function': 'off', 'house/max-lines-per-function': ['error', FUNCTION_LINES] },
  },
  {
    // CommonJS: require() is the import, and the top level is the module's function scope.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', parserOptions: { ecmaFeatures: { globalReturn: true } } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
