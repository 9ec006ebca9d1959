/**
 * The vault's tables in dependency order (a parent before the rows that reference it): the order in
 * which backups write and restores insert them.
 */
export const tablesInOrder = [
  'meta',
  'root_keys',
  'admins',
  'projects',
  'data_keys',
  'environments',
  'identities',
  'access_tokens',
  'secrets',
  'secret_versions',
  'audit_events',
  'audit_head',
  'webhooks',
  'webhook_outbox',
] as const
