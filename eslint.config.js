// ESLint (typescript-eslint's recommended rules, without type information so that it runs in seconds)
// over everything we write; Prettier formats it (`npm run format`), and `npm run lint` checks both.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'AbortController',
    'AbortSignal',
    'TextDecoder',
    'TextEncoder',
    'fetch',
    'structuredClone',
    'queueMicrotask',
    'performance',
  ].map((name) => [name, 'readonly']),
)

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'bench/.tools/**', 'coverage/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {globals: nodeGlobals},
    rules: {
      // the hidden-text rules match control and format characters on purpose
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true},
      ],
      'no-empty': ['error', {allowEmptyCatch: true}],
    },
  },
  {
    // the CLI's entry is CommonJS (bin/package.json): an ES module would start Node's ES module loader
    files: ['bin/run.js'],
    languageOptions: {sourceType: 'commonjs', globals: {require: 'readonly', __dirname: 'readonly', __filename: 'readonly'}},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // tests and the bench build hostile and odd values by hand, and rethrow tool failures as plain errors
    files: ['test/**', 'bench/**'],
    rules: {'@typescript-eslint/no-explicit-any': 'off', 'preserve-caught-error': 'off'},
  },
)
