import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { allFolders, mayImport } from './scripts/layers.mjs'

const oclifFence = {
  name: '@oclif/core',
  message: 'Only src/commands and src/cli/base-command.ts import oclif.',
}

/** The import rule of one folder of src/: oclif's fence, and the folders its rank may not import. */
function layerZone(folder) {
  const forbidden = allFolders.filter((other) => !mayImport(folder, other))
  const patterns = forbidden.length
    ? [
        {
          regex: `^(?:\\.\\./)+(?:${forbidden.join('|')})(?:/|\\.js$)`,
          message: `src/${folder} may not import this folder: see the layer table in scripts/layers.mjs.`,
        },
      ]
    : []
  return {
    files: [`src/${folder}/**`],
    rules: { 'no-restricted-imports': ['error', { paths: [oclifFence], patterns }] },
  }
}

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [oclifFence] }],
    },
  },
  ...allFolders.map(layerZone),
  {
    // parameter objects: a function of src/ takes at most 4 positional parameters
    files: ['src/**/*.ts'],
    rules: { 'max-params': 'off', '@typescript-eslint/max-params': ['error', { max: 4 }] },
  },
  {
    files: ['src/commands/**', 'src/cli/base-command.ts', 'bin/**', 'test/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
)
