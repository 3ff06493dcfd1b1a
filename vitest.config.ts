import {availableParallelism} from 'node:os'
import {defineConfig} from 'vitest/config'
import {BaseSequencer, type TestSpecification} from 'vitest/node'

/**
 * The files that take longest, slowest first (measured on a 2-core machine, a whole run's per-file
 * times; every file over ~25 s is here): started first, they end while the many short files fill the
 * other workers, instead of one of them starting last and running alone (crash-parts, 120 s, was not
 * listed and could start last). Vitest orders by its own cache of durations only where one exists,
 * which a fresh clone (CI) has not.
 */
const SLOWEST = [
  'test/e2e/crash.test.ts',
  'test/e2e/crash-enable.test.ts',
  'test/e2e/crash-parts.test.ts',
  'test/e2e/vendor-cli.test.ts',
  'test/e2e/fast-path.test.ts',
  'test/e2e/fidelity.test.ts',
  'test/e2e/mcp-crash.test.ts',
  'test/e2e/update-review.test.ts',
  'test/e2e/crash-marketplace.test.ts',
  'test/e2e/deps.test.ts',
  'test/e2e/mcp.test.ts',
  'test/e2e/vendor-cli-native.test.ts',
  'test/e2e/signed-sources.test.ts',
  'test/e2e/hostile-mcp-registry.test.ts',
  'test/e2e/trust.test.ts',
  'test/e2e/marketplace-create.test.ts',
  'test/e2e/hostile-lock.test.ts',
  'test/e2e/marketplace-git.test.ts',
  'test/e2e/oci.test.ts',
  'test/e2e/fast-path-writers.test.ts',
  'test/e2e/install-sources.test.ts',
  'test/e2e/native-parts.test.ts',
  'test/e2e/auto-update.test.ts',
  'test/e2e/marketplace-url.test.ts',
]

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = SLOWEST.findIndex((file) => spec.moduleId.endsWith(file))
      return i === -1 ? SLOWEST.length : i
    }
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  test: {
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: on 2 cores, one file at a time, while most
    // of an e2e file's time is spent waiting for the processes it starts
    maxWorkers: Math.max(availableParallelism(), 2),
    sequence: {sequencer: SlowestFirst},
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      // the unit tests share one module graph per worker (a quarter less CPU): none keeps state between files
      {extends: true, test: {name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false}},
      {extends: true, test: {name: 'e2e', include: ['test/**/*.test.ts'], exclude: ['test/unit/**']}},
    ],
  },
})
