/**
 * Compose profiles: which profiles are active (`--profile`, else `COMPOSE_PROFILES`) and which
 * services they enable. As compose-go's `Project.WithProfiles`: a service without `profiles` is
 * always enabled, one with profiles is enabled when one of them is active, and `*` enables all.
 * Dependencies are not enabled behind the user's back: compose refuses a required `depends_on` on a
 * disabled service, and so does the validation (`validate.ts`).
 */
import { setEntry } from './interpolate-model.js'

/** The active profiles: the `--profile` flags when given, else the comma-separated `COMPOSE_PROFILES`. */
export function activeProfiles(flags: readonly string[] | undefined, variable: string | undefined): string[] {
  const raw = flags && flags.length > 0 ? flags : (variable ?? '').split(',')
  return [...new Set(raw.map((profile) => profile.trim()).filter(Boolean))]
}

/** True when a service with these `profiles` is enabled by `active`. */
export function isEnabled(profiles: unknown, active: readonly string[]): boolean {
  if (!Array.isArray(profiles) || profiles.length === 0) return true
  if (active.includes('*')) return true
  return profiles.some((profile) => active.includes(String(profile)))
}

/** Splits services into the enabled and the disabled ones. */
export function selectServices<T extends Record<string, unknown>>(
  services: Record<string, T>,
  active: readonly string[],
): { enabled: Record<string, T>; disabled: Record<string, T> } {
  const enabled: Record<string, T> = {}
  const disabled: Record<string, T> = {}
  for (const [name, service] of Object.entries(services)) {
    setEntry(isEnabled(service.profiles, active) ? enabled : disabled, name, service)
  }
  return { enabled, disabled }
}
