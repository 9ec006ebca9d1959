// Preloaded (node --import) into a CLI run by the gzip-bomb test: at exit, writes the process's peak
// resident set size in bytes to the file named by VAULT_TEST_RSS_FILE. It reads VmHWM from
// /proc/self/status, the peak of this program's own memory: getrusage's maxRSS also counts the
// parent's memory that the child was forked with before exec.
import { readFileSync, writeFileSync } from 'node:fs'

process.on('exit', () => {
  const file = process.env.VAULT_TEST_RSS_FILE
  if (!file) return
  const peak = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
  writeFileSync(file, String(peak ? Number(peak[1]) * 1024 : -1))
})
