/**
 * The web console served by `vault server` at `/` and `/console/...`: server-rendered pages for humans
 * (sign-in, projects, secrets and their history, machine identities, webhooks, audit), no JavaScript, one
 * stylesheet served by the server. Pages call the same domain functions as the API and the admin commands.
 */
import type { VaultContext } from '../context.js'
import type { Resource } from '../http/router.js'
import { auditResources } from './audit-page.js'
import { environmentResources } from './environment-page.js'
import { pageHeaders } from './headers.js'
import { identityResources } from './identities-page.js'
import { paths } from './paths.js'
import { projectResources } from './projects-page.js'
import { secretResources } from './secret-page.js'
import { signInResources } from './sign-in.js'
import { stylesheet } from './stylesheet.js'
import { webhookResources } from './webhooks-page.js'

/** Every console resource, in routing order. */
export function consoleResources(context: VaultContext): Resource[] {
  return [
    {
      path: paths.stylesheet,
      methods: {
        GET: async () => ({
          status: 200,
          text: stylesheet,
          headers: {
            ...pageHeaders,
            'content-type': 'text/css; charset=utf-8',
            'cache-control': 'public, max-age=3600',
          },
        }),
      },
    },
    ...signInResources(context),
    ...projectResources(context),
    ...environmentResources(context),
    ...secretResources(context),
    ...identityResources(context),
    ...webhookResources(context),
    ...auditResources(context),
  ]
}
