/**
 * The rule set of a connection: its identity (peer address, verified client certificate, frontend) is
 * read once and the rule set chosen by client-rules.ts is kept for the connection's lifetime. A TCP
 * connection whose peer address cannot be read (the client reset it before its request was handled)
 * is refused: it would otherwise pass for a client without an address.
 */
import type net from 'node:net'
import type { TLSSocket } from 'node:tls'
import { describeIdentity, selectRuleSet, type ClientIdentity } from './client-rules.js'
import type { RuleSet, RuleSetConfig } from './rule-sets.js'

/** The rule set for a connection, or why there is none. */
export type RuleChoice = { ruleSet: RuleSet } | { ruleSet: undefined; refusal: string }

const chosen = new WeakMap<net.Socket, RuleChoice>()
const forEveryone = new WeakMap<RuleSetConfig, RuleChoice>()

/** The identity of a connection that arrived on `frontend`. */
export function identityOf(socket: net.Socket, frontend: string): ClientIdentity {
  const identity: ClientIdentity = { frontend }
  if (socket.remoteAddress !== undefined) identity.address = socket.remoteAddress
  const tls = socket as Partial<TLSSocket>
  if (tls.encrypted && tls.authorized && typeof tls.getPeerCertificate === 'function') {
    const subject = tls.getPeerCertificate().subject as ClientIdentity['certSubject']
    if (subject && Object.keys(subject).length > 0) identity.certSubject = subject
  }
  return identity
}

/** A TCP peer whose address is gone: getpeername fails once the client has reset the connection. */
const addressLost = (identity: ClientIdentity) =>
  identity.address === undefined && identity.frontend.startsWith('tcp://')

/** Chooses (once per connection) the rule set for a request arriving on `socket` through `frontend`. */
export function chooseRuleSet(config: RuleSetConfig, socket: net.Socket, frontend: string): RuleChoice {
  if (config.everyone) {
    let choice = forEveryone.get(config)
    if (!choice) forEveryone.set(config, (choice = { ruleSet: config.everyone }))
    return choice
  }
  const known = chosen.get(socket)
  if (known) return known
  const identity = identityOf(socket, frontend)
  const selector = addressLost(identity) ? undefined : selectRuleSet(config.selectors, identity)
  const choice: RuleChoice = selector
    ? { ruleSet: config.sets.get(selector.ruleSet)! }
    : {
        ruleSet: undefined,
        refusal: addressLost(identity)
          ? 'no rule set for this client (its address cannot be read: the connection was reset)'
          : `no rule set for this client (${describeIdentity(identity)})`,
      }
  chosen.set(socket, choice)
  return choice
}
