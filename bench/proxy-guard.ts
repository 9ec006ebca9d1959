/**
 * The host-escape guard's CPU per container create (issue 34: at most 50 µs): planGuard plus judgeBody
 * (UTF-8 check, JSON.parse, the repeated-key count, the Go-style walk, the verdict) over the create body
 * the Docker CLI 28 sent for `docker create --name web -e A=1 -v data:/data -p 127.0.0.1:8080:80
 * --restart unless-stopped --network none busybox sh -c 'sleep 1'` (captured on this machine), a
 * docker-py style body, and a refused one. Runs in a child under the serving process's V8 flags
 * (launch.ts), whose interpreter-heavy settings make JavaScript slower than Node's defaults, and under
 * the defaults for comparison. Prints µs of CPU (user + system) per create after a warm-up.
 * Run: npx tsx bench/proxy-guard.ts [iterations]
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { judgeBody, planGuard } from '../src/proxy/guard.js'
import { defaultGuardSettings } from '../src/proxy/guard-settings.js'
import { proxyNodeFlags } from '../src/proxy/launch.js'
import { printTable } from './lib/timing.js'

const dockerCliCreate = String.raw`{"Hostname":"","Domainname":"","User":"","AttachStdin":false,"AttachStdout":true,"AttachStderr":true,"ExposedPorts":{"80/tcp":{}},"Tty":false,"OpenStdin":false,"StdinOnce":false,"Env":["A=1"],"Cmd":["sh","-c","sleep 1"],"Image":"busybox","Volumes":{},"WorkingDir":"","Entrypoint":null,"OnBuild":null,"Labels":{},"HostConfig":{"Binds":["data:/data"],"ContainerIDFile":"","LogConfig":{"Type":"","Config":{}},"NetworkMode":"none","PortBindings":{"80/tcp":[{"HostIp":"127.0.0.1","HostPort":"8080"}]},"RestartPolicy":{"Name":"unless-stopped","MaximumRetryCount":0},"AutoRemove":false,"VolumeDriver":"","VolumesFrom":null,"ConsoleSize":[0,0],"CapAdd":null,"CapDrop":null,"CgroupnsMode":"","Dns":[],"DnsOptions":[],"DnsSearch":[],"ExtraHosts":null,"GroupAdd":null,"IpcMode":"","Cgroup":"","Links":null,"OomScoreAdj":0,"PidMode":"","Privileged":false,"PublishAllPorts":false,"ReadonlyRootfs":false,"SecurityOpt":null,"UTSMode":"","UsernsMode":"","ShmSize":0,"Isolation":"","CpuShares":0,"Memory":0,"NanoCpus":0,"CgroupParent":"","BlkioWeight":0,"BlkioWeightDevice":[],"BlkioDeviceReadBps":[],"BlkioDeviceWriteBps":[],"BlkioDeviceReadIOps":[],"BlkioDeviceWriteIOps":[],"CpuPeriod":0,"CpuQuota":0,"CpuRealtimePeriod":0,"CpuRealtimeRuntime":0,"CpusetCpus":"","CpusetMems":"","Devices":[],"DeviceCgroupRules":null,"DeviceRequests":null,"MemoryReservation":0,"MemorySwap":0,"MemorySwappiness":-1,"OomKillDisable":false,"PidsLimit":0,"Ulimits":[],"CpuCount":0,"CpuPercent":0,"IOMaximumIOps":0,"IOMaximumBandwidth":0,"MaskedPaths":null,"ReadonlyPaths":null},"NetworkingConfig":{"EndpointsConfig":{}}}`

const dockerPyCreate = JSON.stringify({
  Image: 'busybox',
  Cmd: ['sleep', '600'],
  Labels: { 'com.docker.compose.project': 'demo', 'com.docker.compose.service': 'app' },
  HostConfig: {
    NetworkMode: 'none',
    Privileged: false,
    CapAdd: null,
    CapDrop: null,
    Binds: ['demo_data:/data:rw'],
    VolumesFrom: [],
    Links: [],
    LogConfig: { Type: '', Config: {} },
  },
  NetworkingConfig: { EndpointsConfig: {} },
})

const refusedCreate = dockerCliCreate.replace('"Privileged":false', '"Privileged":true')

const bodies: [string, string][] = [
  ['docker CLI create (1.6 KB)', dockerCliCreate],
  ['docker-py create', dockerPyCreate],
  ['a refused create (Privileged)', refusedCreate],
]

/** CPU µs per guarded create of `body`, over `iterations` after as many warm-up rounds. */
function measure(body: Buffer, iterations: number): number {
  const request = { method: 'POST', path: '/v1.41/containers/create', query: '?name=web', hasBody: true }
  const once = () => {
    const plan = planGuard(defaultGuardSettings, request)
    if (plan.action !== 'read-body') throw new Error('the create is not read')
    judgeBody(
      plan.kind,
      { query: request.query, contentType: 'application/json', body },
      defaultGuardSettings,
    )
  }
  for (let i = 0; i < iterations; i++) once()
  const start = process.cpuUsage()
  for (let i = 0; i < iterations; i++) once()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / iterations
}

/** Issue 34, section 7: the guard adds at most this many µs of CPU to a create. */
export const guardGoalMicros = 50

/** µs of CPU per guarded create of each body (in `bodies`' order), in a child Node run with `flags`. */
export function guardCost(flags: readonly string[], iterations: number): number[] {
  const child = spawnSync(
    process.execPath,
    [...flags, '--import', 'tsx', fileURLToPath(import.meta.url), String(iterations)],
    {
      env: { ...process.env, PROXY_GUARD_BENCH_CHILD: '1' },
      encoding: 'utf8',
    },
  )
  if (child.status !== 0) throw new Error(child.stderr)
  return JSON.parse(child.stdout) as number[]
}

/** The guard's goal line: the largest cost under the serving process's flags against 50 µs. */
export function guardGoalLine(lean: readonly number[]): string {
  const worst = Math.max(...lean)
  return (
    `guard CPU per create (worst of ${bodies.length} bodies, proxy flags): ${worst.toFixed(1)} µs ` +
    `(goal <= ${guardGoalMicros}: ${worst <= guardGoalMicros ? 'goal holds' : 'goal NOT met'})`
  )
}

const iterations = Number(process.argv[2] ?? 20_000)
const runDirectly = process.argv[1] === fileURLToPath(import.meta.url)
if (process.env.PROXY_GUARD_BENCH_CHILD) {
  process.stdout.write(JSON.stringify(bodies.map(([, text]) => measure(Buffer.from(text), iterations))))
} else if (runDirectly) {
  const lean = guardCost(proxyNodeFlags, iterations)
  const plain = guardCost([], iterations)
  printTable(
    ['body', 'µs CPU per create, proxy flags', 'µs, Node defaults'],
    bodies.map(([name], index) => [name, lean[index]!.toFixed(1), plain[index]!.toFixed(1)]),
  )
  console.log(guardGoalLine(lean))
}
