/**
 * Test helper: a compose policy loaded from a throw-away stack with vault's loader, and a create body
 * decided as the proxy decides it (planComposeRequest: decoding as dockerd does, then match-create.ts).
 */
import { loadComposePolicy } from '../../src/proxy/compose-policy/load.js'
import type { ComposePolicy } from '../../src/proxy/compose-policy/policy.js'
import { planComposeRequest, type PolicyVerdict } from '../../src/proxy/compose-policy/routes.js'
import { defaultGuardSettings } from '../../src/proxy/guard-settings.js'
import { writeStack } from './compose-stack.js'

/** The policy of `compose.yaml` (with `name: app` prepended) written to a new directory. */
export function policyOf(compose: string): ComposePolicy {
  const dir = writeStack({ 'compose.yaml': `name: app\n${compose}` })
  return loadComposePolicy(['compose.yaml'], {}, dir)
}

/** Compose's labels for a service of project `app`. */
export const composeLabels = (service: string, project = 'app') => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
})

/** The proxy's verdict on `POST /v1.41/containers/create` with this body (an object, or text as sent). */
export async function createVerdict(policy: ComposePolicy, body: unknown): Promise<PolicyVerdict> {
  const plan = planComposeRequest(policy, defaultGuardSettings, {
    method: 'POST',
    path: '/v1.41/containers/create',
    query: '?name=x',
  })
  if (plan.action !== 'decide') throw new Error(`a create is decided on its body, not ${plan.action}`)
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return plan.decide({ body: Buffer.from(text), contentType: 'application/json' }, () =>
    Promise.reject(new Error('no engine read expected')),
  )
}
