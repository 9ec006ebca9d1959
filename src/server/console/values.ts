/**
 * A secret value as a console form sends it: the browser's CRLF line breaks of a textarea become LF (so a
 * pasted PEM key is stored as typed), and the API's rules apply (well-formed UTF-8, size limit).
 */
import type { VaultContext } from '../context.js'
import { ApiError } from '../http/http.js'

/** The value of a form field, checked like the API checks a JSON value. */
export function formValue(context: VaultContext, text: string | undefined): string {
  if (text === undefined) throw new ApiError(400, 'bad_request', 'the form needs a value')
  const value = text.replace(/\r\n/g, '\n')
  if (Buffer.byteLength(value) > context.limits.maxValueBytes) {
    throw new ApiError(
      413,
      'value_too_large',
      `secret values are limited to ${context.limits.maxValueBytes} bytes`,
    )
  }
  return value
}

/** A version number of a form or query (400 unless a positive integer). */
export function versionOf(text: string | null | undefined): number {
  if (!text || !/^[1-9][0-9]{0,9}$/.test(text))
    throw new ApiError(400, 'bad_request', 'a version is a positive integer')
  return Number(text)
}
