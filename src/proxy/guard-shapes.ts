/**
 * The Go shapes (go-json.ts) of the request bodies the host-escape guard reads: only the fields it
 * checks, with the names and types of dockerd's structs (moby api/types: container.HostConfig and its
 * embedded Resources, mount.Mount, the create wrapper of runconfig, swarm.ServiceSpec, volume create
 * options, exec config). Other fields are not read (Go ignores what a struct does not name, and so does
 * the decoder for what a shape does not name). test/unit/proxy/go-json.differential.test.ts mirrors these
 * in Go.
 */
import { bool, mapOf, sliceOf, strslice, string, struct, type GoShape } from './go-json.js'

type StructShape = Extract<GoShape, { kind: 'struct' }>

/** mount.Mount: a bind's Source is a host path; a volume's driver options can bind one too. */
export const mountShape = struct(
  {
    Type: string,
    Source: string,
    Target: string,
    VolumeOptions: struct({ DriverConfig: struct({ Name: string, Options: mapOf(string) }) }),
  },
  false,
)

/** container.Resources (embedded in HostConfig, and the body of an update). */
const resourcesFields = {
  CgroupParent: string,
  Devices: sliceOf(struct({ PathOnHost: string, PathInContainer: string, CgroupPermissions: string }, false)),
  DeviceCgroupRules: sliceOf(string),
  DeviceRequests: sliceOf(struct({ Driver: string }, false)),
}

/** container.HostConfig, the fields that reach the host. */
const hostConfigFields = {
  ...resourcesFields,
  Binds: sliceOf(string),
  NetworkMode: string,
  VolumesFrom: sliceOf(string),
  CapAdd: strslice,
  CgroupnsMode: string,
  IpcMode: string,
  PidMode: string,
  Privileged: bool,
  SecurityOpt: sliceOf(string),
  UTSMode: string,
  UsernsMode: string,
  Sysctls: mapOf(string),
  Runtime: string,
  Mounts: sliceOf(mountShape),
  MaskedPaths: sliceOf(string),
  ReadonlyPaths: sliceOf(string),
}

/** The names of the HostConfig fields the guard reads (a create body may carry them at its top level). */
export const hostConfigFieldNames = Object.keys(hostConfigFields)

/**
 * The container create body (runconfig.ContainerConfigWrapper): `HostConfig`, and, through the embedded
 * *container.HostConfig, the same fields at the top level, which a 20.10 engine uses when `HostConfig`
 * is absent. The guard checks both.
 */
export const containerCreateShape = struct(
  { ...hostConfigFields, HostConfig: struct(hostConfigFields) },
  false,
) as StructShape

/** container.UpdateConfig: Resources (embedded) and a restart policy. */
export const containerUpdateShape = struct(resourcesFields, false) as StructShape

/** types.ExecConfig. */
export const execCreateShape = struct({ Privileged: bool }, false) as StructShape

/** volume.CreateOptions (Docker) and libpod's volume create options. */
export const volumeCreateShape = struct({ Driver: string, DriverOpts: mapOf(string) }, false) as StructShape
export const libpodVolumeCreateShape = struct(
  { Driver: string, Options: mapOf(string) },
  false,
) as StructShape

const networkAttachments = sliceOf(struct({ Target: string }, false))

/** swarm.ServiceSpec, the fields that reach the host. */
export const serviceSpecShape = struct(
  {
    TaskTemplate: struct(
      {
        ContainerSpec: struct({
          Mounts: sliceOf(mountShape),
          CapabilityAdd: sliceOf(string),
          Sysctls: mapOf(string),
          Privileges: struct({
            SELinuxContext: struct({ Disable: bool, Type: string }),
            Seccomp: struct({ Mode: string }),
            AppArmor: struct({ Mode: string }),
          }),
        }),
        PluginSpec: struct({ Name: string, Remote: string }),
        Runtime: string,
        Networks: networkAttachments,
      },
      false,
    ),
    Networks: networkAttachments,
  },
  false,
) as StructShape
