import {validateMarketplace, type MarketplaceValidation} from '../../core/ops/authoring/marketplace-validate.js'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {STRICT_FLAG} from '../command-spec.js'
import {renderMarketplaceValidation} from '../render/marketplace-authoring.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    strict: STRICT_FLAG,
    fix: {type: 'boolean', description: 'repair what is mechanical (path forms, name case, a byte-order mark) and say what changed'},
  },
  args: {name: 'path', description: 'the marketplace folder, or one marketplace.json (default: .)'},
} as const

/** `loadout marketplace validate [path]`: the exit status says whether the marketplace passes. */
export const marketplaceValidate = sharedCommand(spec, async ({flags, argv}, io): Promise<MarketplaceValidation> => {
  const path = argv[0] ?? '.'
  const result = await validateMarketplace({path, cwd: io.env.cwd, strict: flags.strict === true, fix: flags.fix === true})
  if (!result.valid) {
    if (!io.json) writeStderr(renderMarketplaceValidation(result))
    const counts = `${result.errors} error(s)${result.strict ? `, ${result.warnings} warning(s) (strict)` : ''}`
    throw new LoadoutError('validation-failed', EXIT.validation, `${counts} in the marketplace at ${path}`, {
      details: result,
      suggestions: [
        result.problems.some((p) => p.fixable) && !flags.fix
          ? 'some can be repaired: run this again with --fix'
          : 'fix the problems listed above, then run this again',
      ],
    })
  }
  io.log(renderMarketplaceValidation(result))
  return result
})
