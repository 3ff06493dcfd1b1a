import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceCreate} from '../../ui/shared-commands/marketplace-create.js'

export default oclifCommand(marketplaceCreate, {
  summary: 'Scaffold a plugin marketplace: its catalog, a plugins/ folder, a README and a git repository',
  examples: [
    '<%= config.bin %> marketplace create team-tools --owner "Acme Tools <tools@acme.dev>"',
    '<%= config.bin %> marketplace create team-tools --format all --dir ./marketplaces/team --no-git',
  ],
})
