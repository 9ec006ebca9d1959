/**
 * Each way a built-in rotator fails is its own class of the VaultError family, with its ERR_ code and
 * documented exit code (README's table), and as `--json` reports it. Driven through the rotators'
 * own code with a fake database (URL path) and a fake `compose exec` (service path) that fail the way
 * PostgreSQL, psql and the MySQL client do; the real databases are in test/integration/rotators.test.ts.
 * A canary password in the drivers' and clients' output never reaches a message.
 */
import { describe, expect, it } from 'vitest'
import { VaultError } from '../../../../src/errors.js'
import {
  RotatorLoginError,
  RotatorPasswordError,
  RotatorRefusedError,
  RotatorRestoreError,
} from '../../../../src/rotate/rotators/errors.js'
import { mysqlRotator } from '../../../../src/rotate/rotators/mysql.js'
import { postgresRotator, sqlLiteral } from '../../../../src/rotate/rotators/postgres.js'
import {
  changePasswordByUrl,
  checkPassword,
  passwordLine,
  type RotatorSession,
  type ServiceExec,
} from '../../../../src/rotate/rotators/rotator.js'
import { reportError } from '../../../../src/text/error-report.js'

const canary = 'CANARY-rotator-7f3a'

type ErrorClass = new (...args: never[]) => VaultError

/** Runs `action` and returns what it threw (fails the test when it throws nothing). */
async function thrown(action: () => unknown): Promise<unknown> {
  try {
    await action()
  } catch (error) {
    return error
  }
  throw new Error('nothing was thrown')
}

function expectFailure(error: unknown, Class: ErrorClass, code: string, exitCode: number): void {
  expect(error).toBeInstanceOf(Class)
  expect(error).toBeInstanceOf(VaultError)
  const { name, message } = error as VaultError
  expect(name).toBe(Class.name)
  expect(reportError(error)).toMatchObject({ name: Class.name, code, exitCode })
  expect(message).not.toContain(canary)
}

/** A database by URL whose steps fail as told; records the passwords it was set to. */
function fakeDatabase(fail: { login?: boolean; set?: boolean; fresh?: boolean; restore?: boolean }) {
  const setTo: string[] = []
  const driverError = (what: string) =>
    new Error(`(conn:7, no: 1819, SQLState: HY000) ${what}\nsql: SET PASSWORD = ? - parameters:['${canary}']`)
  let connections = 0
  const database = {
    rotator: 'postgres',
    hint: 'check the URL',
    connect: async (password: string): Promise<RotatorSession> => {
      connections++
      if (connections === 1 && fail.login) throw new Error('password authentication failed for user "app"')
      if (connections > 1 && fail.fresh) throw new Error(`login refused\nwith ${password}`)
      return { query: async () => undefined, end: async () => undefined }
    },
    setPassword: async (_session: RotatorSession, password: string) => {
      const restoring = setTo.length > 0
      setTo.push(password)
      if (!restoring && fail.set) throw driverError('Your password does not satisfy the policy')
      if (restoring && fail.restore) throw driverError('connection lost')
    },
  }
  return { database, setTo }
}

/** A `compose exec` that answers each call with the next of `results` (exit code, stderr). */
function fakeExec(results: [number, string][]): { exec: ServiceExec; inputs: string[] } {
  const inputs: string[] = []
  const exec: ServiceExec = async (_service, _argv, { input }) => {
    inputs.push(input)
    const [exitCode, stderr] = results[inputs.length - 1] ?? [0, '']
    return { exitCode, stdout: inputs.length === 1 ? '10.11.6-MariaDB' : '', stderr }
  }
  return { exec, inputs }
}

const psqlEcho = `ERROR:  password is too short\nLINE 1: ALTER ROLE CURRENT_USER PASSWORD '${canary}'\n                                         ^`

describe('a password the database cannot take: RotatorPasswordError, ERR_ROTATOR_PASSWORD, exit 2', () => {
  it.each([
    ['a NUL (any path)', () => checkPassword(`a\0${canary}`)],
    ['a line break (a client in a service)', () => passwordLine(`a\n${canary}`)],
    ['a NUL in a PostgreSQL literal', () => sqlLiteral(`a\0${canary}`)],
    [
      'the PostgreSQL rotator, before anything is sent',
      () => postgresRotator({ kind: 'url', url: 'postgres://app@127.0.0.1:1/app' }).apply('old', 'a\0b'),
    ],
    [
      'the MySQL rotator in a service, before anything is sent',
      () => mysqlRotator({ kind: 'service', service: 'db', exec: fakeExec([]).exec }).apply('old', 'a\nb'),
    ],
  ])('%s', async (_case, action) => {
    expectFailure(await thrown(action), RotatorPasswordError, 'ERR_ROTATOR_PASSWORD', 2)
  })
})

describe('by URL', () => {
  it('the current password does not log in: RotatorLoginError, ERR_ROTATOR_LOGIN, exit 7', async () => {
    const { database, setTo } = fakeDatabase({ login: true })
    const error = await thrown(() => changePasswordByUrl(database, { from: 'old', to: canary }))
    expectFailure(error, RotatorLoginError, 'ERR_ROTATOR_LOGIN', 7)
    expect((error as Error).message).toMatch(/cannot log in with the current password/)
    expect(setTo).toEqual([])
  })

  it('the database refuses the change: RotatorRefusedError, ERR_ROTATOR_REFUSED, exit 10', async () => {
    const { database, setTo } = fakeDatabase({ set: true })
    const error = await thrown(() => changePasswordByUrl(database, { from: 'old', to: canary }))
    expectFailure(error, RotatorRefusedError, 'ERR_ROTATOR_REFUSED', 10)
    expect((error as Error).message).toMatch(/refused the new password: .*does not satisfy the policy$/)
    expect(setTo).toEqual([canary])
  })

  it('a fresh login with the new password fails: the old one is put back, RotatorRefusedError', async () => {
    const { database, setTo } = fakeDatabase({ fresh: true })
    const error = await thrown(() => changePasswordByUrl(database, { from: 'old', to: canary }))
    expectFailure(error, RotatorRefusedError, 'ERR_ROTATOR_REFUSED', 10)
    expect((error as Error).message).toMatch(/the old one is back: login refused$/)
    expect(setTo).toEqual([canary, 'old'])
  })

  it('and the old one cannot be put back: RotatorRestoreError, ERR_ROTATOR_RESTORE, exit 12', async () => {
    const { database, setTo } = fakeDatabase({ fresh: true, restore: true })
    const error = await thrown(() => changePasswordByUrl(database, { from: 'old', to: canary }))
    expectFailure(error, RotatorRestoreError, 'ERR_ROTATOR_RESTORE', 12)
    expect((error as VaultError).hint).toMatch(/by hand/)
    expect(setTo).toEqual([canary, 'old'])
  })

  it('a success throws nothing and sets the new password once', async () => {
    const { database, setTo } = fakeDatabase({})
    await changePasswordByUrl(database, { from: 'old', to: canary })
    expect(setTo).toEqual([canary])
  })
})

describe('inside a compose service (psql)', () => {
  const rotate = (results: [number, string][]) => {
    const fake = fakeExec(results)
    const rotator = postgresRotator({ kind: 'service', service: 'db', exec: fake.exec })
    return { apply: () => rotator.apply('old', canary), inputs: fake.inputs }
  }

  it.each([
    [
      'psql cannot connect (exit 2): RotatorLoginError',
      [[2, 'psql: error: FATAL:  password authentication failed for user "app"']],
      RotatorLoginError,
      'ERR_ROTATOR_LOGIN',
      7,
      1,
    ],
    [
      'the ALTER ROLE fails (exit 3): RotatorRefusedError, psql echoing the statement',
      [[3, psqlEcho]],
      RotatorRefusedError,
      'ERR_ROTATOR_REFUSED',
      10,
      1,
    ],
    [
      'a fresh login fails, the old one is back: RotatorRefusedError',
      [
        [0, ''],
        [2, 'psql: error: FATAL:  password authentication failed'],
        [0, ''],
      ],
      RotatorRefusedError,
      'ERR_ROTATOR_REFUSED',
      10,
      3,
    ],
    [
      'a fresh login fails and the old one cannot be put back: RotatorRestoreError',
      [
        [0, ''],
        [2, 'psql: error: FATAL:  password authentication failed'],
        [2, 'psql: error: connection refused'],
      ],
      RotatorRestoreError,
      'ERR_ROTATOR_RESTORE',
      12,
      3,
    ],
  ] as const)('%s', async (_case, results, Class, code, exitCode, calls) => {
    const { apply, inputs } = rotate(results as unknown as [number, string][])
    const error = await thrown(apply)
    expectFailure(error, Class, code, exitCode)
    expect((error as Error).message).toMatch(/(FATAL|ERROR|psql: error).*$/)
    expect(inputs).toHaveLength(calls)
  })
})

describe('inside a compose service (the MySQL / MariaDB client)', () => {
  it.each([
    [
      'the client cannot log in: RotatorLoginError',
      [[1, "ERROR 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)"]],
      RotatorLoginError,
      'ERR_ROTATOR_LOGIN',
      7,
      1,
    ],
    [
      'SET PASSWORD fails: RotatorRefusedError',
      [
        [0, ''],
        [1, 'ERROR 1819 (HY000) at line 1: Your password does not satisfy the current policy requirements'],
      ],
      RotatorRefusedError,
      'ERR_ROTATOR_REFUSED',
      10,
      2,
    ],
    [
      'a fresh login fails, the old one is back: RotatorRefusedError',
      [
        [0, ''],
        [0, ''],
        [1, 'ERROR 1045 (28000): Access denied'],
        [0, ''],
      ],
      RotatorRefusedError,
      'ERR_ROTATOR_REFUSED',
      10,
      4,
    ],
    [
      'and the old one cannot be put back: RotatorRestoreError',
      [
        [0, ''],
        [0, ''],
        [1, 'ERROR 1045 (28000): Access denied'],
        [1, 'ERROR 2013 (HY000): Lost connection'],
      ],
      RotatorRestoreError,
      'ERR_ROTATOR_RESTORE',
      12,
      4,
    ],
  ] as const)('%s', async (_case, results, Class, code, exitCode, calls) => {
    const fake = fakeExec(results as unknown as [number, string][])
    const rotator = mysqlRotator({ kind: 'service', service: 'db', exec: fake.exec })
    const error = await thrown(() => rotator.apply('old', canary))
    expectFailure(error, Class, code, exitCode)
    expect((error as Error).message).toMatch(/ERROR \d+/)
    expect(fake.inputs).toHaveLength(calls)
  })
})
