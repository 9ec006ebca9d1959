/** The part of the `debug` package (oclif's logger) that vault uses; the package ships no types. */
declare module 'debug' {
  interface Debug {
    log: (...args: unknown[]) => void
    inspectOpts?: import('node:util').InspectOptions
  }
  const createDebug: Debug
  export default createDebug
}
