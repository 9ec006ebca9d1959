/**
 * The frame of the admin API's handlers: the bearer must be a signed-in human's token, the operation's
 * domain errors become API errors (403 for a member's admin operation, 400 for bad input, 404, 409),
 * and bodies and fields are read strictly (strings of bounded length, nothing echoed back).
 */
import type { ApiRequest, ApiResponse, Handler } from '../http/api.js'
import type { VaultContext } from '../context.js'
import { ConflictError, NotFoundError, UsageError } from '../../errors.js'
import { ForbiddenError } from '../humans/actor.js'
import { callOfRequest } from '../humans/human-token.js'
import { ApiError, readJsonObject } from '../http/http.js'
import type { AdminCall } from '../operations/call.js'

/** The longest string field an admin body may hold. */
const maxFieldLength = 2048

/** Maps the domain errors of an operation to API errors; anything else is rethrown (a 500). */
export function apiErrorOf(error: unknown): unknown {
  if (error instanceof ForbiddenError) return new ApiError(403, 'forbidden', error.message)
  if (error instanceof UsageError) return new ApiError(400, 'bad_request', error.message)
  if (error instanceof NotFoundError) return new ApiError(404, 'not_found', error.message)
  if (error instanceof ConflictError) return new ApiError(409, 'conflict', error.message)
  return error
}

/** A handler of the admin API: `work` gets the human's operation frame. */
export function adminHandler(
  context: VaultContext,
  work: (call: AdminCall, request: ApiRequest) => Promise<ApiResponse>,
): Handler {
  return async (request) => {
    const call = await callOfRequest(context, request)
    try {
      return await work(call, request)
    } catch (error) {
      throw apiErrorOf(error)
    }
  }
}

/** The string fields of a JSON body: `required` must be present, every field a bounded string. */
export async function stringFields<Name extends string>(
  request: ApiRequest,
  fields: { required: Name[]; optional?: Name[] },
): Promise<Record<Name, string> & Partial<Record<Name, string>>> {
  const body = await readJsonObject(request)
  const result: Partial<Record<Name, string>> = {}
  for (const name of [...fields.required, ...(fields.optional ?? [])]) {
    const value = body[name]
    if (value === undefined || value === null) {
      if (fields.required.includes(name)) throw new ApiError(400, 'bad_request', `the body needs "${name}"`)
      continue
    }
    if (typeof value !== 'string' || value.length > maxFieldLength)
      throw new ApiError(
        400,
        'bad_request',
        `"${name}" must be a string of at most ${maxFieldLength} characters`,
      )
    result[name] = value
  }
  return result as Record<Name, string>
}

/** A non-negative integer query parameter, or `fallback`. */
export function integerParam(request: ApiRequest, name: string, fallback: number): number {
  const text = request.url.searchParams.get(name)
  if (text === null || text === '') return fallback
  if (!/^\d{1,15}$/.test(text))
    throw new ApiError(400, 'bad_request', `${name} must be a non-negative integer`)
  return Number(text)
}
