/** The console's URLs, built in one place (every path segment percent-encoded). */
const segment = encodeURIComponent

const project = (name: string) => `/console/projects/${segment(name)}`
const environment = (name: string, env: string) => `${project(name)}/environments/${segment(env)}`
const secret = (name: string, env: string, key: string) => `${environment(name, env)}/secrets/${segment(key)}`

export const paths = {
  home: '/',
  stylesheet: '/console/static/console.css',
  signIn: '/console/sign-in',
  signOut: '/console/sign-out',
  projects: '/console/projects',
  environment,
  secrets: (name: string, env: string) => `${environment(name, env)}/secrets`,
  secret,
  reveal: (name: string, env: string, key: string) => `${secret(name, env, key)}/reveal`,
  deleteSecret: (name: string, env: string, key: string) => `${secret(name, env, key)}/delete`,
  rollback: (name: string, env: string, key: string) => `${secret(name, env, key)}/rollback`,
  identities: (name: string) => `${project(name)}/identities`,
  rotateIdentity: (name: string, id: string) => `${project(name)}/identities/${segment(id)}/rotate`,
  revokeIdentity: (name: string, id: string) => `${project(name)}/identities/${segment(id)}/revoke`,
  webhooks: (name: string) => `${project(name)}/webhooks`,
  deleteWebhook: (name: string, id: string) => `${project(name)}/webhooks/${segment(id)}/delete`,
  audit: (name: string) => `${project(name)}/audit`,
}
