import {createRequire} from 'node:module'

/**
 * A CommonJS `require`, for Node's own modules, packages and the compiled schemas (synchronously,
 * the same instance an import gives). The fast path's bundle (bin/build.mjs) has its own `require`
 * in this one's place: node:module loads Node's ES module loader with it, ~0.5 ms of every run.
 */
export const nodeRequire: NodeJS.Require = createRequire(import.meta.url)
