// Peer tools the bench compares loadout with. Claude Code's CLI is the pinned one the vendor-CLI tests
// use (test/support/vendor-clis.js), installed from the npm registry into $LOADOUT_VENDOR_CLIS (default
// ~/.cache/loadout-vendor-clis) the first time a scenario needs it. Its package says Node >= 22, which
// only matters to its wrapper: the executable is native (an optional dependency).
import {installVendorCli, vendorCliVersion} from '../test/support/vendor-clis.js'

let cached

/** {path, version} of Claude Code's CLI, installing it on first use; {why} when it cannot be had. */
export const claudeCli = () => {
  if (cached) return cached
  try {
    const path = installVendorCli('claude-code', process.env, (line) => process.stderr.write(`bench: ${line}\n`))
    cached = {path, version: vendorCliVersion('claude-code').split(' ')[0]}
  } catch (error) {
    cached = {why: error.message.split('\n')[0]}
  }
  return cached
}
