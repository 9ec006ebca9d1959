/** The fake engines' 64 KB container list, in Docker's shape (one definition for the Node and Go engines). */

/** A list of containers in Docker's shape, just over `bytes` long. */
export function containerList(bytes: number): Buffer {
  const containers: unknown[] = []
  for (let i = 0; JSON.stringify(containers).length < bytes; i++) {
    containers.push({
      Id: i.toString(16).padStart(64, '0'),
      Names: [`/bench-${i}`],
      Image: 'busybox:latest',
      ImageID: `sha256:${'ab'.repeat(32)}`,
      Command: 'sleep infinity',
      Created: 1_700_000_000 + i,
      Ports: [],
      Labels: { 'com.docker.compose.project': 'bench', 'com.docker.compose.service': `svc-${i}` },
      State: 'running',
      Status: 'Up 2 hours',
      HostConfig: { NetworkMode: 'bridge' },
      NetworkSettings: { Networks: { bridge: { IPAddress: `172.17.${i >> 8}.${i & 255}` } } },
      Mounts: [],
    })
  }
  return Buffer.from(JSON.stringify(containers))
}
