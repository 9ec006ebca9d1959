import * as Flags from '@oclif/core/flags'
import { BaseCommand } from '../cli/base-command.js'
import {
  byteEncodings,
  charsets,
  defaultPasswordLength,
  generatePassword,
  minimumPasswordLength,
  randomSecret,
  type ByteEncoding,
  type CharsetName,
} from '../crypto/password.js'
import { UsageError } from '../errors.js'

export interface PwgenResult {
  values: string[]
}

export default class Pwgen extends BaseCommand<typeof Pwgen> {
  static override summary = 'generate random passwords or random secret values'
  static override description =
    'Characters are drawn uniformly (rejection sampling) from a cryptographic random source. ' +
    `The default is ${defaultPasswordLength} alphanumeric characters, the seed's minimum strength; ` +
    '--bytes prints raw random bytes encoded, for keys such as AUTH_JWT_SECRET.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'a 32-character alphanumeric password' },
    {
      command: '<%= config.bin %> <%= command.id %> --length 48 --charset ascii',
      description: 'with symbols',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --bytes 32 --encoding hex',
      description: 'a 32-byte hex key',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --count 3 --json',
      description: 'three passwords as JSON',
    },
  ]
  static override enableJsonFlag = true
  static override flags = {
    'allow-weak': Flags.boolean({ summary: `allow lengths under ${minimumPasswordLength}` }),
    bytes: Flags.integer({
      summary: 'print this many random bytes, encoded, instead of a password',
      min: 1,
      max: 4096,
    }),
    charset: Flags.option({ options: Object.keys(charsets) as CharsetName[] })({
      summary: 'characters to draw from [default: alnum]',
      exclusive: ['bytes'],
    }),
    count: Flags.integer({ char: 'n', summary: 'how many values to print', default: 1, min: 1, max: 10000 }),
    encoding: Flags.option({ options: byteEncodings })({
      summary: 'encoding of --bytes output [default: hex]',
      dependsOn: ['bytes'],
    }),
    length: Flags.integer({
      char: 'l',
      summary: `password length in characters [default: ${defaultPasswordLength}]`,
      exclusive: ['bytes'],
    }),
  }

  async run(): Promise<PwgenResult> {
    const { bytes, count } = this.flags
    const length = this.flags.length ?? defaultPasswordLength
    if (bytes === undefined && length < minimumPasswordLength && !this.flags['allow-weak']) {
      throw new UsageError(
        `a length of ${length} is too weak: use at least ${minimumPasswordLength}, or pass --allow-weak`,
      )
    }
    const charset = charsets[this.flags.charset ?? 'alnum']
    const encoding: ByteEncoding = this.flags.encoding ?? 'hex'
    const values = Array.from({ length: count }, () =>
      bytes === undefined ? generatePassword(length, charset) : randomSecret(bytes, encoding),
    )
    if (!this.jsonEnabled()) this.out(values.join('\n'))
    return { values }
  }
}
