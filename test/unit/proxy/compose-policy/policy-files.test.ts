/**
 * Which files PROXY_COMPOSE_POLICY names (policy-files.ts): a path with a blank or a comma is a path,
 * and the old comma- or blank-separated form still names its files.
 */
import { describe, expect, it } from 'vitest'
import { policyFiles } from '../../../../src/proxy/compose-policy/policy-files.js'
import { loadComposePolicy } from '../../../../src/proxy/compose-policy/load.js'
import { writeStack } from '../../../helpers/compose-stack.js'

const service = (name: string) => `services:\n  ${name}:\n    image: busybox\n`

describe('the files of PROXY_COMPOSE_POLICY', () => {
  it('reads an entry that is a file as that file, blanks and commas included', () => {
    const dir = writeStack({
      'my stack/compose.yaml': service('a'),
      'a,b.yaml': service('b'),
      a: '',
      'b.yaml': '',
    })
    expect(policyFiles(['my stack/compose.yaml', 'a,b.yaml'], dir)).toEqual([
      'my stack/compose.yaml',
      'a,b.yaml',
    ])
  })

  it('reads the old form (files separated by commas or blanks) when each part is a file and the whole is not', () => {
    const dir = writeStack({ 'compose.yaml': service('a'), 'compose.prod.yaml': service('b') })
    expect(policyFiles(['compose.yaml,compose.prod.yaml'], dir)).toEqual([
      'compose.yaml',
      'compose.prod.yaml',
    ])
    expect(policyFiles(['compose.yaml, compose.prod.yaml'], dir)).toEqual([
      'compose.yaml',
      'compose.prod.yaml',
    ])
    expect(policyFiles([`${dir}/compose.yaml ${dir}/compose.prod.yaml`], '/')).toEqual([
      `${dir}/compose.yaml`,
      `${dir}/compose.prod.yaml`,
    ])
    // a part that is not a file: the entry stays whole, and loading names it
    expect(policyFiles(['compose.yaml,missing.yaml'], dir)).toEqual(['compose.yaml,missing.yaml'])
    const policy = loadComposePolicy(['compose.yaml,compose.prod.yaml'], {}, dir)
    expect([...policy.services.keys()]).toEqual(['a', 'b'])
  })

  it('stops with a usage error naming the variable and the entries, as the separator joins them', () => {
    const dir = writeStack({ 'compose.yaml': service('a') })
    expect(() => loadComposePolicy(['compose.yaml', 'missing.yaml'], {}, dir)).toThrow(
      /^PROXY_COMPOSE_POLICY compose.yaml:missing.yaml: /,
    )
  })
})
