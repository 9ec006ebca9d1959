import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@oclif/core', message: 'Only src/commands and src/base-command.ts import oclif.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/commands/**', 'src/base-command.ts', 'bin/**', 'test/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
)
