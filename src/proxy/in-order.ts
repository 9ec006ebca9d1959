/**
 * Pipelined requests on one client connection run one at a time, in order: Node parses ahead and would
 * start every pipelined request at once (thousands of engine connections from one client, answers out
 * of order). Here the next request of a connection starts only when the previous response is closed,
 * and the connection stops being read while more than a few requests wait. After a response that closes
 * the connection (a refusal with a body, a framing error), nothing that followed on it runs.
 */
import type http from 'node:http'
import type net from 'node:net'

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, expectsContinue: boolean) => void

/** Requests that may wait on one connection before it is no longer read. */
const maxWaiting = 4

/** Wraps a request handler so that each client connection's requests run one at a time, in order. */
export function oneAtATime(handler: Handler): Handler {
  const waiting = new WeakMap<net.Socket, (() => void)[]>()
  return (req, res, expectsContinue) => {
    const socket = req.socket
    const next = () => {
      const queue = waiting.get(socket)
      const following = queue?.shift()
      if (following === undefined || socket.destroyed || !socket.writable) {
        waiting.delete(socket)
        return
      }
      if (queue!.length < maxWaiting && socket.isPaused()) socket.resume()
      following()
    }
    const run = () => {
      res.once('close', next)
      handler(req, res, expectsContinue)
    }
    const queue = waiting.get(socket)
    if (queue === undefined) {
      waiting.set(socket, [])
      run()
      return
    }
    queue.push(run)
    if (queue.length >= maxWaiting) socket.pause()
  }
}
