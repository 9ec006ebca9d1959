import { describe, expect, it } from 'vitest'
import { namesOwnCommand } from '../../../src/cli/own-command.js'

const ids = ['pwgen', 'secrets:list', 'secrets:set', 'proxy:serve', 'env']

describe('namesOwnCommand', () => {
  it.each([
    [['pwgen'], true],
    [['pwgen', '--length', '40'], true],
    [['secrets', 'list', '--env', 'dev'], true],
    [['secrets:list'], true],
    [['env', 'dev'], true],
    [['proxy', 'serve', 'extra'], true],
    [[], false],
    [['--help'], false],
    [['--version'], false],
    [['help', 'pwgen'], false],
    [['autocomplete', 'bash'], false],
    [['pwgn'], false],
    [['secrets'], false],
    [['secrets', '--help'], false],
    [['-e', 'dev', 'pwgen'], false],
  ])('%j -> %s', (argv, expected) => {
    expect(namesOwnCommand(argv, ids)).toBe(expected)
  })
})
