/** Test helper: the error an action throws, for assertions on its class and message. */

/** Runs the action and returns what it threw; fails the test when it does not throw. */
export function thrown(action: () => unknown): Error {
  try {
    action()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a throw')
}
