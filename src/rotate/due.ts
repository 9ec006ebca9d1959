/**
 * `vault rotate --due`: the age of every secret of the environment, and whether it is due (a secret no
 * rotation rule covers is held to the default age).
 */
import type { VaultApi } from '../client/vault-api.js'
import { defaultRotationRules, parseRuleOverrides, rotationReport, type DueReport } from './policy.js'

export interface DueResult {
  environment?: string
  due: number
  secrets: DueReport[]
}

/** Lists every secret of the environment (metadata only) against the rules, overrides first. */
export async function dueSecrets(
  api: VaultApi,
  environment: string | undefined,
  overrides: string[],
  now = Date.now(),
): Promise<DueResult> {
  const rules = [...parseRuleOverrides(overrides), ...defaultRotationRules]
  const secrets = (await api.listSecretNames(environment)).filter((secret) => !secret.plain)
  const reports = rotationReport(secrets, rules, now)
  return { environment, due: reports.filter((report) => report.due).length, secrets: reports }
}
