import {lstatSync} from 'node:fs'

/** Whether anything is at `path`, a link (even a dangling one) included: the name is looked at, never followed. */
export const entryExists = (path: string): boolean => {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}
