import {environmentWith, type Environment} from '../env/environment.js'
import {findGitRoot} from '../env/scope.js'
import {checkSourceHost} from './enforce.js'
import {hostOfUrl} from './hosts.js'
import {loadPolicy} from './load.js'

/**
 * The environment with the policy's host check on every request (`judgeUrl`): http.ts calls it for
 * the first hop and each redirect, npm.ts for the packument and the tarball, on the canonical host.
 * The policy is the one of the project the command runs in (the git work tree's top, else the
 * working directory), read again at each request so that no hop escapes a file changed meanwhile.
 */
export const withRequestPolicy = (env: Environment): Environment => {
  // found at the first request, not at start-up: most commands make none
  let projectRoot: string | undefined
  return environmentWith(env, {
    judgeUrl: (url) => {
      projectRoot ??= findGitRoot(env.cwd) ?? env.cwd
      const host = hostOfUrl(url.href)
      checkSourceHost(loadPolicy(env, projectRoot), host, `a request to ${host.subject}`)
    },
  })
}
