/**
 * What each git command loadout runs printed. simple-git waits 50 ms more after a process that printed
 * nothing at all, so every command on a command's path should say something. A `git` first on PATH
 * runs the real one and logs, for each command run with loadout's hardening (`core.hooksPath`), the
 * bytes it printed and its arguments without the `-c` settings; any other git call passes straight
 * through.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export interface GitSaid {
  /** bytes written to stdout and stderr together */
  bytes: number
  /** the git command (clone, read-tree, …) */
  command: string
  /** its arguments after the `-c` settings */
  args: string
}

export interface GitSaying {
  /** a PATH whose first folder holds the logging git */
  path: string
  /** the commands logged so far, in order */
  said: () => GitSaid[]
  /** forgets them */
  reset: () => void
}

export const gitSaying = (dir: string): GitSaying => {
  const bin = join(dir, 'bin')
  const log = join(dir, 'said.log')
  const realGit = execFileSync('sh', ['-c', 'command -v git'], {encoding: 'utf8'}).trim()
  mkdirSync(bin, {recursive: true})
  writeFileSync(
    join(bin, 'git'),
    [
      '#!/bin/sh',
      `case "$*" in *core.hooksPath=*) ;; *) exec '${realGit}' "$@" ;; esac`,
      'out=$(mktemp) err=$(mktemp)',
      `'${realGit}' "$@" >"$out" 2>"$err"`,
      'rc=$?',
      'cat "$out"; cat "$err" >&2',
      // one line: the byte count, then the arguments with each `-c <setting>` pair left out
      `args=""; skip=0; for a in "$@"; do if [ $skip = 1 ]; then skip=0; elif [ "$a" = -c ]; then skip=1; else args="$args $a"; fi; done`,
      `printf '%s%s\\n' "$(cat "$out" "$err" | wc -c | tr -d ' ')" "$args" >> '${log}'`,
      'rm -f "$out" "$err"',
      'exit $rc',
      '',
    ].join('\n'),
  )
  chmodSync(join(bin, 'git'), 0o755)
  return {
    path: `${bin}:${process.env.PATH}`,
    said: () =>
      (existsSync(log) ? readFileSync(log, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [bytes, command = '', ...rest] = line.split(' ')
          return {bytes: Number(bytes), command, args: rest.join(' ')}
        }),
    reset: () => rmSync(log, {force: true}),
  }
}
