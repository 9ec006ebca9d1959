/**
 * In-process caches of what decides a request on PostgreSQL (a token's principal, whether an
 * environment exists, a project's active webhooks, an environment's listing), each valid for one database generation. The store
 * bumps a generation in the same transaction as every change of the rows a cache is built from
 * (store/pg-generation.ts), so reading the generation before using a cache is enough to see every
 * change committed on any replica. A request uses only a generation read that STARTED after the
 * request arrived: concurrent requests share one read in flight, never one already under way.
 * Or, cheaper, a request is answered from the generation the caches hold now, unchecked (`optimistic`),
 * and its transaction checks it when it commits (store/pg-transaction.ts): when the generation has
 * moved on, nothing of the transaction is kept and the request runs again with a generation read
 * for it (authorize.ts). Entries computed under an older generation are dropped, not stored. Every map
 * is bounded.
 */
import type { AssumedGeneration, Generation } from './store/driver.js'
import { newerGeneration } from './store/pg-generation.js'

export type { Generation }

/** How many entries each cache holds (oldest dropped first) and the listing cache's size in characters. */
export const readCacheLimits = {
  principals: 10_000,
  environments: 10_000,
  webhooks: 10_000,
  listings: 256,
  listingChars: 32 << 20,
}

/** A bounded map, dropping its oldest entry when full. */
class BoundedMap<V> {
  private readonly entries = new Map<string, V>()
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.entries.get(key)
  }
  set(key: string, value: V): void {
    this.entries.delete(key)
    while (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, value)
  }
  clear(): void {
    this.entries.clear()
  }
  get size(): number {
    return this.entries.size
  }
}

/** A listing and its approximate size, for the listing cache's size bound. */
interface Listing {
  value: unknown
  chars: number
}

/**
 * The caches of one vault process. `view()` reads the generation (single flight, as above) and
 * answers a view bound to it; a view reads and fills the caches only while they hold its generation.
 */
export class ReadCache {
  private generation: Generation | undefined
  private readonly principals: BoundedMap<unknown>
  private readonly environments: BoundedMap<boolean>
  private readonly webhooks: BoundedMap<readonly string[]>
  private readonly listings: BoundedMap<Listing>
  private listingChars = 0
  private queued: Promise<Generation> | undefined
  private inFlight: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly readGeneration: () => Promise<Generation>,
    private readonly limits = readCacheLimits,
  ) {
    this.principals = new BoundedMap(limits.principals)
    this.environments = new BoundedMap(limits.environments)
    this.webhooks = new BoundedMap(limits.webhooks)
    this.listings = new BoundedMap(limits.listings)
  }

  /** A view for a request that arrived now: its generation is read after this call. */
  async view(): Promise<CacheView> {
    return new CacheView(this, await this.read())
  }

  /**
   * A view of the generation held now, not checked (its `assumption` must be checked by the
   * request's transaction); undefined before the first read.
   */
  optimistic(): CacheView | undefined {
    return this.generation && new CacheView(this, this.generation, false)
  }

  /**
   * A view of `generation`, read after the request arrived by a transaction that found its own
   * assumption stale; the caches adopt it when it is newer than theirs.
   */
  viewAt(generation: Generation): CacheView {
    if (!this.generation || newerGeneration(generation, this.generation)) this.adopt(generation)
    return new CacheView(this, generation)
  }

  /** @internal a generation read that starts after this call, adopted (reads finish in order). */
  async read(): Promise<Generation> {
    const generation = await this.nextRead()
    this.adopt(generation)
    return generation
  }

  /** Joins the queued read that has not started yet, or queues one to start after the read in flight. */
  private nextRead(): Promise<Generation> {
    if (this.queued) return this.queued
    const read = this.inFlight.then(() => {
      if (this.queued === read) this.queued = undefined
      return this.readGeneration()
    })
    this.queued = read
    this.inFlight = read.catch(() => undefined)
    return read
  }

  private adopt(generation: Generation): void {
    const current = this.generation
    if (current?.auth !== generation.auth) {
      this.principals.clear()
      this.environments.clear()
      this.webhooks.clear()
    }
    if (current?.auth !== generation.auth || current.content !== generation.content) {
      this.listings.clear()
      this.listingChars = 0
    }
    this.generation = generation
  }

  /** @internal whether the caches of `family` hold generation `at` (contents also need its auth). */
  holds(at: Generation, family: keyof Generation): boolean {
    const current = this.generation
    if (current === undefined || current.auth !== at.auth) return false
    return family === 'auth' || current.content === at.content
  }

  /** @internal */
  principal(at: Generation, jti: string): unknown {
    return this.holds(at, 'auth') ? this.principals.get(jti) : undefined
  }
  /** @internal */
  storePrincipal(at: Generation, jti: string, principal: unknown): void {
    if (this.holds(at, 'auth')) this.principals.set(jti, principal)
  }
  /** @internal */
  environment(at: Generation, key: string): boolean | undefined {
    return this.holds(at, 'auth') ? this.environments.get(key) : undefined
  }
  /** @internal */
  storeEnvironment(at: Generation, key: string, exists: boolean): void {
    if (this.holds(at, 'auth')) this.environments.set(key, exists)
  }
  /** @internal */
  webhookIds(at: Generation, projectId: string): readonly string[] | undefined {
    return this.holds(at, 'auth') ? this.webhooks.get(projectId) : undefined
  }
  /** @internal */
  storeWebhookIds(at: Generation, projectId: string, ids: readonly string[]): void {
    if (this.holds(at, 'auth')) this.webhooks.set(projectId, ids)
  }
  /** @internal */
  listing(at: Generation, key: string): unknown {
    return this.holds(at, 'content') ? this.listings.get(key)?.value : undefined
  }
  /** @internal */
  storeListing(at: Generation, key: string, value: unknown, chars: number): void {
    if (!this.holds(at, 'content') || chars > this.limits.listingChars / 4) return
    if (this.listingChars + chars > this.limits.listingChars) {
      this.listings.clear()
      this.listingChars = 0
    }
    this.listings.set(key, { value, chars })
    this.listingChars += chars
  }

  /** Entries held, per cache (for tests and diagnostics). */
  sizes(): { principals: number; environments: number; webhooks: number; listings: number } {
    return {
      principals: this.principals.size,
      environments: this.environments.size,
      webhooks: this.webhooks.size,
      listings: this.listings.size,
    }
  }
}

/** The caches as one request sees them: bound to the generation read for it (or held, unchecked). */
export class CacheView {
  /** The counters of the cached rows this view has answered with. */
  private readonly used: Partial<Generation> = {}

  constructor(
    private readonly cache: ReadCache,
    readonly generation: Generation,
    /** Whether the generation was read after the request arrived. */
    readonly checked = true,
  ) {}

  /** What the request's transaction must check when the view was not checked. */
  assumption(): AssumedGeneration | undefined {
    if (this.checked) return undefined
    return { relied: () => ({ ...this.used }), current: () => this.cache.read() }
  }

  /** Notes that an answer came from the cache of `family` (a listing needs both counters). */
  private hit<T>(value: T | undefined, family: keyof Generation): T | undefined {
    if (value === undefined) return value
    this.used.auth = this.generation.auth
    if (family === 'content') this.used.content = this.generation.content
    return value
  }

  /** The principal cached for token `jti` (only successful lookups are ever stored). */
  principal<P>(jti: string): P | undefined {
    return this.hit(this.cache.principal(this.generation, jti) as P | undefined, 'auth')
  }
  storePrincipal<P>(jti: string, principal: P): void {
    this.cache.storePrincipal(this.generation, jti, principal)
  }
  environmentExists(projectId: string, slug: string): boolean | undefined {
    return this.hit(this.cache.environment(this.generation, key(projectId, slug)), 'auth')
  }
  storeEnvironment(projectId: string, slug: string, exists: boolean): void {
    this.cache.storeEnvironment(this.generation, key(projectId, slug), exists)
  }
  /** The active webhooks of a project, as cached. */
  webhookIds(projectId: string): readonly string[] | undefined {
    return this.hit(this.cache.webhookIds(this.generation, projectId), 'auth')
  }
  storeWebhookIds(projectId: string, ids: readonly string[]): void {
    this.cache.storeWebhookIds(this.generation, projectId, Object.freeze([...ids]))
  }
  /** The listing cached under `parts` (project, environment, variant). */
  listing<L>(parts: string[]): L | undefined {
    return this.hit(this.cache.listing(this.generation, key(...parts)) as L | undefined, 'content')
  }
  /** Stores a listing of about `chars` characters (a listing over a quarter of the bound is not kept). */
  storeListing<L>(parts: string[], listing: L, chars: number): void {
    this.cache.storeListing(this.generation, key(...parts), listing, chars)
  }
}

const key = (...parts: string[]) => parts.join('\u0000')
