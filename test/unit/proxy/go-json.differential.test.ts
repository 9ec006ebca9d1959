/**
 * The guard's decoding against Go's own: a Go program (standard library only, run with Debian's
 * golang-go) decodes each hostile body with encoding/json's Decoder into structs with dockerd's field
 * names and types for the guarded fields (the create wrapper with its inner and embedded HostConfig,
 * StrSlice as docker defines it, mount.Mount, ExecConfig, volume options, ServiceSpec; the compose
 * policy's create body with nat.PortMap, DNS, extra hosts and links), and prints what
 * it holds. For every body: where the guard's decoder (go-json.ts) gives a view, Go decoded the body
 * without error to exactly that view; where the guard's decoder refuses, either Go failed too or the
 * body is one the decoder cannot decide (a key repeated exactly, a list given twice), and whatever Go
 * made of it the guard refuses. Without `go` the test is skipped, visibly; with
 * VAULT_TEST_REQUIRE_COMPONENTS=1 (CI) it fails.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeGoJson, DecodeError, type GoStruct } from '../../../src/proxy/go-json.js'
import { judgeBody } from '../../../src/proxy/guard.js'
import type { GuardKind } from '../../../src/proxy/guard-endpoints.js'
import { defaultGuardSettings } from '../../../src/proxy/guard-settings.js'
import {
  containerCreateShape,
  execCreateShape,
  serviceSpecShape,
  volumeCreateShape,
} from '../../../src/proxy/guard-shapes.js'
import { composeCreateShape, networkConnectShape } from '../../../src/proxy/compose-policy/shapes.js'

const goProgram =
  String.raw`package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
)

// StrSlice as docker/api/types/strslice defines it.
type StrSlice []string

func (e *StrSlice) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	p := make([]string, 0, 1)
	if err := json.Unmarshal(b, &p); err != nil {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		p = append(p, s)
	}
	*e = p
	return nil
}

type Driver struct {
	Name    string
	Options map[string]string
}
type VolumeOptions struct{ DriverConfig *Driver }
type Mount struct {
	Type          string
	Source        string
	Target        string
	VolumeOptions *VolumeOptions
}
type DeviceMapping struct{ PathOnHost, PathInContainer, CgroupPermissions string }
type DeviceRequest struct{ Driver string }
type Resources struct {
	CgroupParent      string
	Devices           []DeviceMapping
	DeviceCgroupRules []string
	DeviceRequests    []DeviceRequest
}
type HostConfig struct {
	Binds         []string
	NetworkMode   string
	VolumesFrom   []string
	CapAdd        StrSlice
	CgroupnsMode  string
	IpcMode       string
	PidMode       string
	Privileged    bool
	SecurityOpt   []string
	UTSMode       string
	UsernsMode    string
	Sysctls       map[string]string
	Runtime       string
	Mounts        []Mount
	MaskedPaths   []string
	ReadonlyPaths []string
	Resources
}

// runconfig.ContainerConfigWrapper: the inner HostConfig, and HostConfig's fields at the top level.
type CreateWrapper struct {
	InnerHostConfig *HostConfig ` +
  '`json:"HostConfig"`' +
  String.raw`
	HostConfig
}
// The compose policy's create body (compose-policy/shapes.ts): the guard's fields, a mount's ReadOnly,
// nat.PortMap (nat.PortBinding's HostIP is "HostIp" in JSON), where names resolve, and what names the
// project, service, image and networks (container.Config's Image and Labels, NetworkingConfig).
type ComposeMount struct {
	Type          string
	Source        string
	Target        string
	ReadOnly      bool
	VolumeOptions *VolumeOptions
}
type PortBinding struct {
	HostIP   string ` +
  '`json:"HostIp"`' +
  String.raw`
	HostPort string
}
type ComposeHostConfig struct {
	Binds           []string
	NetworkMode     string
	VolumesFrom     []string
	CapAdd          StrSlice
	CgroupnsMode    string
	IpcMode         string
	PidMode         string
	Privileged      bool
	SecurityOpt     []string
	UTSMode         string
	UsernsMode      string
	Sysctls         map[string]string
	Runtime         string
	Mounts          []ComposeMount
	MaskedPaths     []string
	ReadonlyPaths   []string
	PortBindings    map[string][]PortBinding
	PublishAllPorts bool
	ExtraHosts      []string
	DNS             []string ` +
  '`json:"Dns"`' +
  String.raw`
	DNSSearch       []string ` +
  '`json:"DnsSearch"`' +
  String.raw`
	DNSOptions      []string ` +
  '`json:"DnsOptions"`' +
  String.raw`
	Links           []string
	Resources
}
type Endpoint struct {
	Aliases    []string
	Links      []string
	IPAMConfig *struct {
		IPv4Address  string
		IPv6Address  string
		LinkLocalIPs []string
	}
}
type ComposeWrapper struct {
	InnerHostConfig *ComposeHostConfig ` +
  '`json:"HostConfig"`' +
  String.raw`
	ComposeHostConfig
	Image            string
	Labels           map[string]string
	NetworkingConfig *struct{ EndpointsConfig map[string]*Endpoint }
}
// types.NetworkConnect, as the compose policy reads it.
type NetworkConnect struct {
	Container      string
	EndpointConfig *Endpoint
}
type ExecConfig struct{ Privileged bool }
type VolumeCreate struct {
	Driver     string
	DriverOpts map[string]string
}
type Privileges struct {
	SELinuxContext *struct {
		Disable bool
		Type    string
	}
	Seccomp  *struct{ Mode string }
	AppArmor *struct{ Mode string }
}
type ContainerSpec struct {
	Mounts        []Mount
	CapabilityAdd []string
	Sysctls       map[string]string
	Privileges    *Privileges
}
type NetworkAttachment struct{ Target string }
type TaskSpec struct {
	ContainerSpec *ContainerSpec
	PluginSpec    *struct{ Name, Remote string }
	Runtime       string
	Networks      []NetworkAttachment
}
type ServiceSpec struct {
	TaskTemplate TaskSpec
	Networks     []NetworkAttachment
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var row struct{ Kind, Body string }
		if err := json.Unmarshal(in.Bytes(), &row); err != nil {
			panic(err)
		}
		raw, _ := base64.StdEncoding.DecodeString(row.Body)
		var target interface{}
		switch row.Kind {
		case "create":
			target = &CreateWrapper{}
		case "compose":
			target = &ComposeWrapper{}
		case "connect":
			target = &NetworkConnect{}
		case "exec":
			target = &ExecConfig{}
		case "volume":
			target = &VolumeCreate{}
		case "service":
			target = &ServiceSpec{}
		}
		result := map[string]interface{}{"view": target}
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(target); err != nil {
			result["error"] = err.Error()
		}
		out.Encode(result)
	}
}
`

type Kind = 'create' | 'compose' | 'connect' | 'exec' | 'volume' | 'service'
const shapes = {
  create: containerCreateShape,
  compose: composeCreateShape,
  connect: networkConnectShape,
  exec: execCreateShape,
  volume: volumeCreateShape,
  service: serviceSpecShape,
}
const guardKinds: Record<Kind, GuardKind> = {
  create: 'container-create',
  compose: 'container-create',
  connect: 'container-create',
  exec: 'exec-create',
  volume: 'volume-create',
  service: 'service',
}

/** Hostile bodies: [kind, body, what it stands for]. */
const corpus: [Kind, string, string][] = [
  ['create', '{"hostconfig":{"privileged":true}}', 'lower-case keys'],
  ['create', '{"HostConfig":{"Privileged":false,"privileged":true}}', 'case variants: the last wins'],
  ['create', '{"HostConfig":{"privileged":true,"Privileged":false}}', 'case variants: the last wins (false)'],
  [
    'create',
    '{"HostConfig":{"Privileged":true,"privileged":false,"Privileged":true}}',
    'exact repeat after a variant',
  ],
  [
    'create',
    '{"HostConfig":{"Privileged":false,"PRIVILEGED":true,"Privileged":false}}',
    '{"a":1,"A":2,"a":3}',
  ],
  ['create', '{"HostConfig":{"Privileged":false,"Privileged":true}}', 'an exact repeat'],
  ['create', '{"Privileged":true}', 'HostConfig fields at the top level (embedded)'],
  ['create', '{"Privileged":true,"HostConfig":{"Privileged":false}}', 'top level and inner disagree'],
  ['create', '{"HOSTCONFIG":{"BINDS":["/:/host"]}}', 'upper-case keys'],
  [
    'create',
    '{"HostConfig":{"Binds":["/:/h"]},"hostconfig":{"CapAdd":["SYS_ADMIN"]}}',
    'a struct given twice merges',
  ],
  ['create', '{"HostConfig":{"Binds":["/:/h"]},"hostconfig":null}', 'null clears a pointer'],
  [
    'create',
    '{"HostConfig":{"Binds":["/:/h"]},"hostconfig":null,"HOSTCONFIG":{"Privileged":true}}',
    'null, then a fresh struct',
  ],
  ['create', '{"HostConfig":{"Privileged":true,"privileged":null}}', 'null leaves a bool as it was'],
  ['create', '{"HostConfig":{"Privileged":null}}', 'null on a bool'],
  ['create', '{"HostConfig":{"NetworkMode":"host","networkmode":null}}', 'null leaves a string as it was'],
  ['create', '{"HostConfig":{"Networ\u212aMode":"host"}}', 'Kelvin sign for k'],
  ['create', '{"Ho\u017ftConfig":{"Bind\u017f":["/:/h"]}}', 'long s for s'],
  [
    'create',
    '{"HostConfig":{"\u017fecurityopt":["seccomp=unconfined"],"DeviceReque\u017ft\u017f":[{"Driver":"x"}]}}',
    'long s, more',
  ],
  [
    'create',
    '{"HostConfig":{"\u212aapAdd":["SYS_ADMIN"],"Privi\u017feged":true}}',
    'Kelvin and long s where no k or s is',
  ],
  [
    'create',
    '{"HostConfig":{"Pr\u0131vileged":true,"PR\u0130VILEGED":true}}',
    'dotless and dotted i do not fold',
  ],
  ['create', '{"HostConfig":{"Privil\\u0065ged":true}}', 'an escaped key'],
  [
    'create',
    '{"\\u0048ostConfig":{"\\u0050rivileged":true,"\\u0043apAdd":"SYS_ADMIN"}}',
    'escaped keys, StrSlice as a string',
  ],
  ['create', '{"HostConfig":{"Privileged":"true"}}', 'a string for a bool'],
  ['create', '{"HostConfig":{"Privileged":1}}', 'a number for a bool'],
  ['create', '{"HostConfig":{"CapAdd":"SYS_ADMIN"}}', 'StrSlice as one string'],
  ['create', '{"HostConfig":{"CapAdd":["SYS_ADMIN",null]}}', 'StrSlice with a null'],
  ['create', '{"HostConfig":{"CapAdd":{"a":1}}}', 'StrSlice as an object'],
  ['create', '{"HostConfig":{"CapAdd":null,"Privileged":false,"Binds":null}}', "docker-py's falsy defaults"],
  ['create', '{"HostConfig":{"Binds":"/:/h"}}', 'a string for a list'],
  ['create', '{"HostConfig":[]}', 'a list for a struct'],
  ['create', '{"HostConfig":"x"}', 'a string for a struct'],
  ['create', '{"HostConfig":{"Sysctls":{"kernel.core_pattern":1}}}', 'a number in a map of strings'],
  [
    'create',
    '{"HostConfig":{"Sysctls":{"\\ud800":"1","kernel.core_pattern":"|/x"}}}',
    'a lone surrogate key',
  ],
  [
    'create',
    '{"HostConfig":{"Mounts":[{"Type":"bind","Source":"/"}],"mounts":[{"Target":"/x"}]}}',
    'a list of structs twice',
  ],
  ['create', '{"HostConfig":{"Binds":["/:/h"],"binds":[null]}}', 'a list twice, the second null'],
  [
    'create',
    '{"HostConfig":{"Mounts":[{"type":"BIND","source":"/","TARGET":"/h"}]}}',
    'mount keys in any case',
  ],
  ['create', '{"HostConfig":{"Mounts":[null,{"Type":"bind","Source":"/"}]}}', 'a null mount'],
  [
    'create',
    '{"HostConfig":{"Mounts":[{"Type":"volume","VolumeOptions":{"driverconfig":{"name":"local","options":{"o":"bind","device":"/"}}}}]}}',
    'a local volume bound to /',
  ],
  ['create', '{"Config":{"HostConfig":{"Privileged":true}}}', 'an unknown wrapper'],
  ['create', 'null', 'null body'],
  ['create', '[]', 'a list body'],
  ['create', '{"1":true,"Privileged":true}', 'an integer-like key first'],
  [
    'create',
    '{"__proto__":{"Privileged":true},"HostConfig":{"__proto__":{"Privileged":true}}}',
    '__proto__ keys',
  ],
  ['create', '{"":1,"HostConfig ":{"Privileged":true}}', 'empty and padded keys'],
  [
    'create',
    '{"HostConfig":{"DeviceRequests":[{"driver":"nvidia"}],"devices":[{"pathonhost":"/dev/sda"}]}}',
    'device requests and devices',
  ],
  ['create', '{"HostConfig":{"PidMode":"host","pidmode":"container:x","IPCMODE":"host"}}', 'modes'],
  ['create', '{"HostConfig":{"MaskedPaths":[],"readonlypaths":null}}', 'an empty list is not null'],
  ['create', '{"HostConfig":{"Privileged":true}}\u0000', 'a NUL after the body'],
  [
    'compose',
    '{"Image":"postgres","Labels":{"com.docker.compose.service":"db"},"HostConfig":{"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1","HostPort":"5432"}]}}}',
    "docker-compose 1.29's port binding",
  ],
  [
    'compose',
    '{"hostconfig":{"portbindings":{"5432/tcp":[{"hostip":"0.0.0.0","HOSTPORT":"5432"}]}}}',
    'port binding keys in any case',
  ],
  [
    'compose',
    '{"HostConfig":{"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1"}],"5432/TCP":[{"HostPort":"5432"}]}}}',
    'port map keys are exact',
  ],
  [
    'compose',
    '{"HostConfig":{"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1"}]},"portbindings":{"22/tcp":[{"HostPort":"22"}]}}}',
    'a port map twice (Go merges them)',
  ],
  [
    'compose',
    '{"HostConfig":{"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1","hostip":"0.0.0.0","HostPort":"5432"}]}}}',
    'a binding host address twice: the last wins',
  ],
  ['compose', '{"HostConfig":{"PortBindings":{"80/tcp":[{"HoſtIp":"::"}]}}}', 'long s in HostIp'],
  [
    'compose',
    '{"HostConfig":{"PortBindings":{"80/tcp":[null,{"HostPort":"80"}],"81/tcp":null}}}',
    'null bindings',
  ],
  ['compose', '{"HostConfig":{"PortBindings":[]}}', 'a list for a port map'],
  ['compose', '{"HostConfig":{"PortBindings":{"80/tcp":[{"HostPort":80}]}}}', 'a number for a host port'],
  ['compose', '{"HostConfig":{"PortBindings":{"__proto__":[{"HostPort":"22"}]}}}', '__proto__ as a port'],
  [
    'compose',
    '{"HostConfig":{"publishallports":true},"PUBLISHALLPORTS":false}',
    'PublishAllPorts in any case',
  ],
  [
    'compose',
    '{"PortBindings":{"22/tcp":[{"HostPort":"22"}]},"Dns":["203.0.113.53"],"HostConfig":{"Dns":["10.0.0.53"]}}',
    'ports and DNS at the top level and inner',
  ],
  [
    'compose',
    '{"HostConfig":{"ExtraHosts":["a.test:10.0.0.1"],"extrahosts":["evil.test:203.0.113.1"]}}',
    'extra hosts twice',
  ],
  [
    'compose',
    '{"HostConfig":{"ExtraHosts":["evil.test:203.0.113.1"]},"hostconfig":{"ExtraHosts":null}}',
    'extra hosts cleared in a second HostConfig',
  ],
  ['compose', '{"HostConfig":{"Dns":"1.1.1.1"}}', 'a string for the DNS list'],
  [
    'compose',
    '{"HostConfig":{"DNS":["1.1.1.1"],"dnssearch":["x.test"],"DNSOPTIONS":["ndots:1"],"links":["a:b"],"EKtraHosts":[]}}',
    'DNS fields and links in any case',
  ],
  ['compose', '{"HostConfig":{"Dns":["10.0.0.53"],"dns":["203.0.113.53"]}}', 'DNS twice'],
  [
    'compose',
    '{"NetworkingConfig":{"endpointsconfig":{"app_default":{"links":["x:y"],"aliases":["db"]},"other":null}}}',
    'endpoint links in any case',
  ],
  [
    'compose',
    '{"Labels":{"__proto__":"x","com.docker.compose.project":"app"},"HostConfig":{"Mounts":[{"Type":"bind","Source":"/","readonly":true,"ReadOnly":false}]}}',
    '__proto__ label, mount ReadOnly variants',
  ],
  [
    'connect',
    '{"container":"app_web_1","endpointconfig":{"ALIASES":["web","3f4e9a1b2c3d"],"Links":null}}',
    'a connect in any case',
  ],
  [
    'connect',
    '{"Container":"app_web_1","EndpointConfig":{"Aliases":["web"]},"endpointConfig":{"aliases":["db"]}}',
    'connect aliases twice (Go merges)',
  ],
  ['connect', '{"Container":"app_web_1","EndpointConfig":null}', 'a connect without endpoint'],
  [
    'connect',
    '{"Container":"app_web_1","EndpointConfig":{"ipamconfig":{"ipv4address":"10.0.0.5","IPV6ADDRESS":"fd00::5","LinkLocalIPs":["169.254.1.1"]}}}',
    'connect addresses in any case',
  ],
  [
    'compose',
    '{"NetworkingConfig":{"EndpointsConfig":{"app_back":{"IPAMConfig":{"IPv4Address":"10.0.0.5","ipv4address":"10.0.0.9"}}}}}',
    'an endpoint address twice: the last wins',
  ],
  ['exec', '{"privileged":true}', 'lower-case exec'],
  ['exec', '{"Privileged":"yes"}', 'a string for a bool'],
  ['exec', '{"PRIVILEGED":false,"Privileged":true}', 'exec case variants'],
  ['volume', '{"driveropts":{"o":"bind","device":"/"}}', 'a local volume bound to /'],
  ['volume', '{"DriverOpts":{"O":"bind","device":"/"},"driver":"local"}', 'map keys are exact'],
  [
    'service',
    '{"taskTemplate":{"containerSpec":{"mounts":[{"type":"bind","source":"/"}]}}}',
    'service mounts',
  ],
  [
    'service',
    '{"TaskTemplate":{"ContainerSpec":{"CapabilityAdd":["sys_admin"],"privileges":{"seccomp":{"mode":"unconfined"}}}}}',
    'service capabilities and seccomp',
  ],
  [
    'service',
    '{"TaskTemplate":{"Networks":[{"target":"host"}],"pluginspec":{"name":"x"}}}',
    'service host network, plugin',
  ],
]

interface GoResult {
  view: GoStruct
  error?: string
}

/** Runs the Go program over the corpus; undefined when `go` is not installed. */
function decodeWithGo(rows: readonly [Kind, string, string][]): GoResult[] | undefined {
  if (spawnSync('go', ['version']).status !== 0) return undefined
  const dir = mkdtempSync(join(tmpdir(), 'go-json-differential-'))
  writeFileSync(join(dir, 'main.go'), goProgram)
  const input = rows
    .map(([kind, body]) => JSON.stringify({ Kind: kind, Body: Buffer.from(body).toString('base64') }))
    .join('\n')
  const output = execFileSync('go', ['run', join(dir, 'main.go')], {
    input,
    encoding: 'utf8',
    env: { ...process.env, GOPROXY: 'off', GOFLAGS: '', GO111MODULE: 'off', GOCACHE: join(dir, 'cache') },
    timeout: 180_000,
  })
  return output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as GoResult)
}

const required = process.env.VAULT_TEST_REQUIRE_COMPONENTS === '1'
const goResults = decodeWithGo(corpus)
if (!goResults && required)
  throw new Error('VAULT_TEST_REQUIRE_COMPONENTS=1 and `go` is not installed (apt-get install golang-go)')

describe.skipIf(!goResults)(
  `the guard's decoding against Go's encoding/json (${goResults ? 'go found' : 'go not installed'})`,
  () => {
    it.each(corpus.map(([kind, body, name], index) => [name, kind, body, index] as const))(
      "%s: the view is Go's, or the guard refuses what Go could hold",
      (_name, kind, body, index) => {
        const go = goResults![index]!
        let view: GoStruct | undefined
        let refused: DecodeError | undefined
        try {
          view = decodeGoJson(body, shapes[kind])
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error
          refused = error
        }
        if (view) {
          expect(go.error).toBeUndefined()
          expect(view).toEqual(go.view)
        } else {
          expect(refused!.message).toMatch(
            /not valid JSON|not a JSON object|repeats a key|given twice|is not (a|an) /,
          )
          if (/is not (a|an) /.test(refused!.message) && !/JSON/.test(refused!.message))
            expect(go.error).toBeDefined()
        }
        const verdict = judgeBody(
          guardKinds[kind],
          { query: '', contentType: 'application/json', body: Buffer.from(body) },
          defaultGuardSettings,
        )
        if (!go.error) {
          const goVerdict = judgeBody(
            guardKinds[kind],
            { query: '', contentType: 'application/json', body: Buffer.from(JSON.stringify(go.view)) },
            defaultGuardSettings,
          )
          if (goVerdict) expect(verdict).not.toBeNull()
        }
      },
    )

    it('shows why repeats are refused: Go takes the last in document order, and keeps stale list elements', () => {
      const at = (body: string) => goResults![corpus.findIndex(([, text]) => text === body)]!.view
      const hostConfig = (body: string) => at(body).HostConfig as GoStruct
      expect(
        hostConfig('{"HostConfig":{"Privileged":false,"PRIVILEGED":true,"Privileged":false}}').Privileged,
      ).toBe(false)
      expect(
        hostConfig('{"HostConfig":{"Privileged":true,"privileged":false,"Privileged":true}}').Privileged,
      ).toBe(true)
      expect(hostConfig('{"HostConfig":{"Binds":["/:/h"],"binds":[null]}}').Binds).toEqual(['/:/h'])
      expect(
        hostConfig('{"HostConfig":{"Mounts":[{"Type":"bind","Source":"/"}],"mounts":[{"Target":"/x"}]}}')
          .Mounts,
      ).toEqual([{ Type: 'bind', Source: '/', Target: '/x', VolumeOptions: null }])
      for (const body of [
        '{"HostConfig":{"Privileged":false,"PRIVILEGED":true,"Privileged":false}}',
        '{"HostConfig":{"Binds":["/:/h"],"binds":[null]}}',
      ])
        expect(() => decodeGoJson(body, containerCreateShape)).toThrow(DecodeError)
    })

    it("agrees with Go on the issue's two bodies: both are privileged", () => {
      for (const body of [
        '{"hostconfig":{"privileged":true}}',
        '{"HostConfig":{"Privileged":false,"privileged":true}}',
      ]) {
        const index = corpus.findIndex(([, text]) => text === body)
        expect((goResults![index]!.view.HostConfig as GoStruct).Privileged).toBe(true)
        expect((decodeGoJson(body, containerCreateShape).HostConfig as GoStruct).Privileged).toBe(true)
      }
    })
  },
)
