/**
 * The Go shapes (go-json.ts) of the bodies the compose policy reads: the container create body with the
 * guard's host fields plus what names the project, service, image and networks (container.Config's
 * Image and Labels, network.NetworkingConfig's endpoints), the published ports and where names resolve; network and volume create bodies; and a
 * network connect or disconnect body (its Container).
 */
import { bool, mapOf, sliceOf, string, struct, type GoShape } from '../go-json.js'
import { containerCreateShape, mountShape } from '../guard-shapes.js'

type StructShape = Extract<GoShape, { kind: 'struct' }>

/** mount.Mount with its ReadOnly flag (a bind declared read-only must be sent read-only). */
const composeMountShape = struct(
  { ...(mountShape as StructShape).fields, ReadOnly: bool },
  false,
) as StructShape

const hostConfigShape = containerCreateShape.fields.HostConfig as StructShape
const { HostConfig: _, ...topLevelHostFields } = containerCreateShape.fields

/**
 * container.HostConfig's fields the policy reads besides the guard's: nat.PortMap (a map of
 * `PORT/PROTO` to nat.PortBinding, whose HostIP is `HostIp` in JSON), and where names resolve.
 */
const policyHostFields = {
  Mounts: sliceOf(composeMountShape),
  PortBindings: mapOf(sliceOf(struct({ HostIp: string, HostPort: string }, false))),
  PublishAllPorts: bool,
  ExtraHosts: sliceOf(string),
  Dns: sliceOf(string),
  DnsSearch: sliceOf(string),
  DnsOptions: sliceOf(string),
  Links: sliceOf(string),
}

/** network.EndpointSettings: the names and addresses the container takes on the network, its links. */
const endpointShape = struct({
  Aliases: sliceOf(string),
  Links: sliceOf(string),
  IPAMConfig: struct({ IPv4Address: string, IPv6Address: string, LinkLocalIPs: sliceOf(string) }),
})

export const composeCreateShape = struct(
  {
    ...topLevelHostFields,
    ...policyHostFields,
    HostConfig: struct({ ...hostConfigShape.fields, ...policyHostFields }),
    Image: string,
    Labels: mapOf(string),
    NetworkingConfig: struct({ EndpointsConfig: mapOf(endpointShape) }),
  },
  false,
) as StructShape

/** network.CreateRequest. */
export const networkCreateShape = struct(
  {
    Name: string,
    Driver: string,
    Options: mapOf(string),
    Labels: mapOf(string),
    ConfigFrom: struct({ Network: string }),
    Ingress: bool,
    IPAM: struct({ Config: sliceOf(struct({ Subnet: string, IPRange: string, Gateway: string }, false)) }),
  },
  false,
) as StructShape

/** volume.CreateOptions with its name and labels. */
export const volumeCreateShape = struct(
  { Name: string, Driver: string, DriverOpts: mapOf(string), Labels: mapOf(string) },
  false,
) as StructShape

/** types.NetworkConnect / NetworkDisconnect: the container, and on a connect its endpoint. */
export const networkConnectShape = struct(
  { Container: string, EndpointConfig: endpointShape },
  false,
) as StructShape
