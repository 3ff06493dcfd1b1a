import {readSync} from 'node:fs'

/** Reads up to `size` bytes of an open file (a file that shrank since its fstat gives fewer). */
export const readOpenFile = (fd: number, size: number): Buffer => {
  const buffer = Buffer.alloc(size)
  let read = 0
  while (read < size) {
    const n = readSync(fd, buffer, read, size - read, read)
    if (n === 0) break
    read += n
  }
  return buffer.subarray(0, read)
}
