/** How long after its last refresh a marketplace with auto-update on is due again. */
export const AUTO_UPDATE_INTERVAL_MS = 24 * 60 * 60 * 1000

/** Whether a marketplace record (read from disk: untrusted) is due for `update --auto`: on, and refreshed over a day ago or never. */
export const isDue = (record: {autoUpdate?: unknown; updatedAt?: unknown}, now: number): boolean => {
  if (record.autoUpdate !== 'notify' && record.autoUpdate !== 'apply') return false
  const last = typeof record.updatedAt === 'string' ? Date.parse(record.updatedAt) : Number.NaN
  return Number.isNaN(last) || now - last >= AUTO_UPDATE_INTERVAL_MS
}
