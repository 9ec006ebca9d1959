/**
 * A set-up file of the integration project: puts the `docker-compose` shim of the compose fork servers
 * (compose-forkserver.ts) first on this worker's PATH, which the tests hand to what they spawn (vault,
 * whose `vault run -- docker-compose`, rotate and restore find the shim there too). Without a shim
 * (VAULT_TEST_COMPOSE_FORKSERVER=0, no /usr/bin/docker-compose) PATH is left as it is.
 */
import { inject } from 'vitest'

const shimDir = inject('composeShimDir')
if (shimDir && !process.env.PATH?.split(':').includes(shimDir))
  process.env.PATH = `${shimDir}:${process.env.PATH ?? '/usr/bin:/bin'}`
