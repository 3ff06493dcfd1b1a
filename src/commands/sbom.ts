import {oclifCommand} from '../ui/oclif-command.js'
import {sbom} from '../ui/shared-commands/sbom.js'

export default oclifCommand(sbom, {
  summary:
    'Write a software bill of materials of what is installed (CycloneDX 1.6 or SPDX 2.3 JSON): plugins, versions, sources, commits, hashes and every file written',
  examples: ['<%= config.bin %> sbom --format cyclonedx', '<%= config.bin %> sbom --format spdx --scope project --out sbom.spdx.json'],
})
