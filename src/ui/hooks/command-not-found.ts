import {toConfiguredId, type Hook} from '@oclif/core'
import {usageError} from '../../core/model/errors.js'
import {closestNames} from '../../core/kernel/text/suggest.js'
import {printError} from '../base-command.js'

/**
 * `loadout instal`: a command that does not exist is a usage error (status 2) in loadout's own
 * words, with the closest commands as "did you mean", and as `{"error": ...}` under `--json`.
 */
const commandNotFound: Hook<'command_not_found'> = async function ({argv, config, id}) {
  // With spaces between topic and command, oclif's id runs on into the arguments
  // (`instal acme/review` is `instal:acme/review`): the command is the topics plus one word.
  const words = id.split(':')
  let length = 1
  while (length < words.length && config.findTopic(words.slice(0, length).join(':'))) length++
  const wanted = words.slice(0, length).join(':')
  const known = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const close = closestNames(wanted, known).map((c) => toConfiguredId(c, config))
  const typed = toConfiguredId(wanted, config)
  const error = usageError('unknown-command', `"${typed}" is not a ${config.bin} command`, {
    details: {command: typed, ...(close.length > 0 ? {didYouMean: close} : {})},
    suggestions: [
      close.length > 0 ? `did you mean ${close.map((c) => `"${c}"`).join(' or ')}?  try: ${config.bin} ${close[0]} --help` : `see: ${config.bin} help`,
    ],
  })
  process.exitCode = error.exitStatus
  if (argv?.includes('--json')) process.stdout.write(`${JSON.stringify({error: error.toJSON()}, null, 2)}\n`)
  else printError(error)
}

export default commandNotFound
