import {releaseAgeMs} from '../../model/policy.js'

/** How long after its last refresh a marketplace with auto-update on is due again, unless `LOADOUT_AUTO_UPDATE_INTERVAL` says otherwise. */
export const AUTO_UPDATE_INTERVAL_MS = 24 * 60 * 60 * 1000

/**
 * The interval `update --auto` waits between two refreshes of a marketplace: `LOADOUT_AUTO_UPDATE_INTERVAL`
 * (`<n>m`, `<n>h`, `<n>d` or `<n>w`, at least one minute), else a day. Undefined when the variable is
 * set to anything else.
 */
export const autoUpdateIntervalMs = (vars: Readonly<Record<string, string | undefined>>): number | undefined => {
  const text = vars.LOADOUT_AUTO_UPDATE_INTERVAL
  if (text === undefined || text === '') return AUTO_UPDATE_INTERVAL_MS
  const ms = releaseAgeMs(text.trim())
  return ms !== undefined && ms > 0 ? ms : undefined
}

/** Whether a marketplace record (read from disk: untrusted) is due for `update --auto`: on, and refreshed at least `interval` ago, or never. */
export const isDue = (record: {autoUpdate?: unknown; updatedAt?: unknown}, now: number, interval = AUTO_UPDATE_INTERVAL_MS): boolean => {
  if (record.autoUpdate !== 'notify' && record.autoUpdate !== 'apply') return false
  const last = typeof record.updatedAt === 'string' ? Date.parse(record.updatedAt) : Number.NaN
  return Number.isNaN(last) || now - last >= interval
}
