/**
 * Test certificates made with the openssl CLI: a self-signed certificate, and a throwaway CA that signs
 * one certificate per name for 127.0.0.1 (server and client certificates for TLS and mutual TLS tests).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' })

/** Whether the openssl CLI is on PATH (tests that need certificates skip visibly without it). */
export const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0

/** Writes a one-day self-signed RSA certificate with the given subject (e.g. `/CN=127.0.0.1`). */
export function makeSelfSigned(subject: string, keyFile: string, certFile: string): void {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    subject,
    '-keyout',
    keyFile,
    '-out',
    certFile,
  )
}

/**
 * Writes, into `dir`, a CA (`ca.key`, `ca.pem`, subject `/CN=test-ca`) and for each name a key and a
 * certificate signed by it (`<name>.key`, `<name>.pem`, subject `/CN=<name>` plus `subjectSuffix`,
 * subjectAltName IP:127.0.0.1).
 */
export function makeCaSignedCertificates(dir: string, names: readonly string[], subjectSuffix = ''): void {
  const file = (name: string) => join(dir, name)
  makeSelfSigned('/CN=test-ca', file('ca.key'), file('ca.pem'))
  writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1\n')
  for (const name of names) {
    signWithCa(dir, name, { subject: `/CN=${name}${subjectSuffix}`, x509: ['-extfile', file('san.ext')] })
  }
}

/**
 * Writes `<name>.key` and `<name>.pem` into `dir`, a certificate with the exact openssl `subject`
 * (`/CN=a/CN=b`, `/CN=a+O=b` for a multi-valued RDN, `/` for an empty one) signed by the CA that
 * makeCaSignedCertificates wrote there.
 */
export function makeSignedWithSubject(dir: string, name: string, subject: string): void {
  signWithCa(dir, name, { subject, req: ['-multivalue-rdn'] })
}

/** `<name>.key` and `<name>.pem` in `dir`: a new key and its certificate, signed by `dir`'s CA. */
function signWithCa(
  dir: string,
  name: string,
  options: { subject: string; req?: string[]; x509?: string[] },
): void {
  const file = (part: string) => join(dir, part)
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    ...(options.req ?? []),
    '-subj',
    options.subject,
    '-keyout',
    file(`${name}.key`),
    '-out',
    file(`${name}.csr`),
  )
  openssl(
    'x509',
    '-req',
    '-in',
    file(`${name}.csr`),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    ...(options.x509 ?? []),
    '-out',
    file(`${name}.pem`),
  )
}
