import { BaseCommand } from '../../cli/base-command.js'
import { providerMetadata, type ProviderMetadata } from '../../delivery/compose-provider-metadata.js'

export default class ComposeMetadata extends BaseCommand<typeof ComposeMetadata> {
  static override summary = "describe the provider's options to compose (JSON)"
  static override description =
    'Compose 2.37 and later runs this before `vault compose up`: it passes only the options listed ' +
    'here and refuses a stack that lacks a required one (secrets).'
  static override examples = ['<%= config.bin %> <%= command.id %>']

  async run(): Promise<ProviderMetadata> {
    const metadata = providerMetadata()
    process.stdout.write(`${JSON.stringify(metadata)}\n`)
    return metadata
  }
}
