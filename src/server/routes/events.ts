/**
 * The change feed of an environment, `GET /api/v1/events?environment=E`: Server-Sent Events naming
 * each created, updated, deleted or rolled-back secret with its new version, never a value. Read
 * permission on the environment is required (as for listing secrets) and re-checked on every poll.
 * A stream resumes after the `Last-Event-ID` it sends; without one it starts at the present. Streams
 * are capped per identity and per client address; the per-source request rate limit applies too.
 */
import { appendAudit, auditHeadSeq } from '../audit/audit.js'
import { header, type ApiRequest, type ApiResponse } from '../http/api.js'
import type { createAuthorizer } from '../authorize.js'
import { streamChanges } from '../secrets/change-feed.js'
import { sourceKey } from '../http/client-address.js'
import type { VaultContext } from '../context.js'
import { secretChangesAfter } from '../secrets/event-rows.js'
import { unexpectedFailure } from '../http/failures.js'
import { ApiError } from '../http/http.js'
import type { Resource } from '../http/router.js'

/** Open streams allowed at once for one identity, and for one client address. */
export const streamCaps = { perIdentity: 8, perSource: 16 }

const pageSize = 200

function lastEventId(request: ApiRequest): number | undefined {
  const given = header(request, 'last-event-id')
  if (given === undefined || given === '') return undefined
  if (!/^[0-9]{1,15}$/.test(given))
    throw new ApiError(400, 'bad_request', 'Last-Event-ID is a sequence number')
  return Number(given)
}

/** Counts open streams per key and refuses beyond a cap. */
class StreamSlots {
  private readonly open = new Map<string, number>()
  full(key: string, cap: number): boolean {
    return (this.open.get(key) ?? 0) >= cap
  }
  take(key: string, cap: number): boolean {
    if (this.full(key, cap)) return false
    const count = this.open.get(key) ?? 0
    this.open.set(key, count + 1)
    return true
  }
  release(key: string): void {
    const count = (this.open.get(key) ?? 1) - 1
    if (count <= 0) this.open.delete(key)
    else this.open.set(key, count)
  }
}

/** The change-feed resource of a vault. */
export function eventResources(
  context: VaultContext,
  authorizer: ReturnType<typeof createAuthorizer>,
): Resource[] {
  const slots = new StreamSlots()

  async function subscribe(request: ApiRequest): Promise<ApiResponse> {
    const resumeAfter = lastEventId(request)
    const sourceSlot = `source ${sourceKey(request.origin.ip)}`
    const opened = await authorizer.inEnvironment(request, 'read', async ({ tx, scope }) => {
      // a stream refused for its cap is not audited as a subscription (the take below decides races)
      if (slots.full(`identity ${scope.actor}`, streamCaps.perIdentity)) throw tooMany('this identity')
      if (slots.full(sourceSlot, streamCaps.perSource)) throw tooMany('this address')
      const seq = await auditHeadSeq(tx)
      await appendAudit(tx, context.keyring.auditKey, {
        projectId: scope.projectId,
        environment: scope.environment,
        actor: scope.actor,
        action: 'secret.watch',
        result: 'ok',
        requestId: scope.requestId,
        ip: scope.ip,
        detail: resumeAfter === undefined ? null : `after ${resumeAfter}`,
      })
      return { scope, startSeq: resumeAfter ?? seq }
    })
    const { scope, startSeq } = opened
    const identityKey = `identity ${scope.actor}`
    if (!slots.take(identityKey, streamCaps.perIdentity)) throw tooMany('this identity')
    if (!slots.take(sourceSlot, streamCaps.perSource)) {
      slots.release(identityKey)
      throw tooMany('this address')
    }
    const poll = (afterSeq: number) =>
      authorizer
        .inEnvironment(request, 'read', ({ tx }) => secretChangesAfter(tx, scope, afterSeq, pageSize))
        .catch((error: unknown) => {
          if (error instanceof ApiError) throw error
          const failure = unexpectedFailure(error, {
            engine: context.driver.engine,
            requestId: request.origin.requestId,
            what: 'change feed',
          })
          throw new ApiError(failure.status, failure.apiCode, failure.message, failure.headers)
        })
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' },
      stream: (sink) =>
        streamChanges(sink, {
          startSeq,
          environment: scope.environment,
          poll,
          timing: context.timings.feed,
        }).finally(() => {
          slots.release(identityKey)
          slots.release(sourceSlot)
        }),
    }
  }

  return [{ path: '/api/v1/events', methods: { GET: subscribe } }]
}

function tooMany(who: string): ApiError {
  return new ApiError(429, 'too_many_streams', `too many open change feeds for ${who}; close one first`, {
    'retry-after': '5',
  })
}
