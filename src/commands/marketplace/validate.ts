import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceValidate} from '../../ui/shared-commands/marketplace-validate.js'

export default oclifCommand(marketplaceValidate, {
  summary: "Check a marketplace's catalogs and the plugin folders they list; the exit status says whether they pass",
  examples: [
    '<%= config.bin %> marketplace validate .',
    '<%= config.bin %> marketplace validate ./team-tools --strict --json',
    '<%= config.bin %> marketplace validate . --fix',
  ],
})
