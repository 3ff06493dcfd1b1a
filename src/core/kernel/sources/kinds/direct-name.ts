const lastSegment = (path: string): string => path.split(/[/:]/).filter(Boolean).pop() ?? ''

/**
 * The name of a plugin fetched straight from a git repository or an archive that names itself
 * nowhere: its subfolder, repository or archive file name, kebab-cased (the cache folder it is read
 * from is named after a commit or a digest, which means nothing to the user).
 */
export const directName = (raw: {path?: string; name: string}): string =>
  (raw.path ? lastSegment(raw.path) : raw.name)
    .replace(/\.git$|\.tar\.gz$|\.tgz$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')

/** The last segment of a URL, its query and fragment dropped. */
export const urlName = (url: string): string => lastSegment(url.replace(/[?#].*$/, ''))

export const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}
