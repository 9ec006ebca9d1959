import { describe, expect, it } from 'vitest'
import {
  baseSecrets,
  checkBaseSecretInput,
  generateBaseSecret,
  validateBackupRepository,
  validateCidrList,
  validateTimezone,
} from '../../../src/stack/base-secrets.js'
import { UsageError } from '../../../src/errors.js'

const spec = (name: string) => baseSecrets.find((s) => s.name === name)!

describe('base secrets catalogue', () => {
  it('lists the seed section 2.4 names, messenger values optional', () => {
    expect(baseSecrets.map((s) => s.name)).toHaveLength(21)
    expect(baseSecrets.filter((s) => !s.required).map((s) => s.name)).toEqual([
      'MESSENGER_BOT_TOKEN',
      'MESSENGER_CHAT_ID',
    ])
  })

  it.each(['AUTH_JWT_SECRET', 'AUTH_SESSION_SECRET', 'AUTH_STORAGE_ENCRYPTION_KEY'])(
    'generates %s as 32 bytes of hex',
    (name) => {
      expect(generateBaseSecret(spec(name))).toMatch(/^[0-9a-f]{64}$/)
    },
  )

  it.each(['DATABASE_PASSWORD', 'AUTH_DB_PASSWORD', 'GATEWAY_API_PASSWORD', 'BACKUP_PASSWORD'])(
    'generates %s as a 32-character password',
    (name) => {
      expect(generateBaseSecret(spec(name))).toMatch(/^[A-Za-z0-9]{32}$/)
    },
  )

  it('does not generate an input', () => {
    expect(() => generateBaseSecret(spec('DOMAINNAME'))).toThrow(UsageError)
  })
})

describe('validators', () => {
  it.each([
    ['b2:my-bucket:stack', true],
    ['s3:bucket.name:/path/to', true],
    ['b2:bucket', false],
    ['bucket:path', false],
    ['', false],
  ])('BACKUP_REPOSITORY %j valid=%s', (value, ok) => {
    expect(validateBackupRepository(value) === undefined).toBe(ok)
  })

  it.each([
    ['10.0.0.0/8', true],
    ['10.0.0.0/8, 192.168.0.0/16', true],
    ['fd00::/8', true],
    ['10.0.0.0', false],
    ['300.0.0.0/8', false],
    ['10.0.0.0/33', false],
  ])('GATEWAY_TRUSTED_IPS %j valid=%s', (value, ok) => {
    expect(validateCidrList(value) === undefined).toBe(ok)
  })

  it.each([
    ['Europe/Berlin', true],
    ['America/Argentina/Buenos_Aires', true],
    ['Mars/Olympus', false],
    ['UTC+2', false],
  ])('TZ %j valid=%s', (value, ok) => {
    expect(validateTimezone(value) === undefined).toBe(ok)
  })

  it.each([
    ['DATA_DIR', 'relative/path'],
    ['PUID', '-1'],
    ['DOMAINNAME', 'not a host'],
  ])('refuses %s=%j with a UsageError naming the secret', (name, value) => {
    expect(() => checkBaseSecretInput(spec(name), value)).toThrow(new RegExp(`^${name} `))
  })
})

describe('sensitive inputs', () => {
  it('marks the object-storage key and the bot token as never taken from a flag', () => {
    expect(baseSecrets.filter((s) => s.sensitive).map((s) => s.name)).toEqual([
      'OBJSTORE_ACCOUNT_KEY',
      'MESSENGER_BOT_TOKEN',
    ])
  })
})
