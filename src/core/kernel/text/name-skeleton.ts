/**
 * Names a person reads (skills, subagents, plugins, MCP servers) must say what they look like: in
 * Unicode normal form NFKC (so a fullwidth `ｍy-skill` is refused, not installed beside `my-skill`),
 * and not confusable with a name already in the same folder. Two names are confusable when their
 * skeletons are equal: NFKC, lower case, and common look-alikes (Cyrillic and Greek letters that
 * look Latin, `0`/`o`, `1`/`l`, `rn`/`m`) mapped to one letter.
 */

/** The rule a name breaks by not being its own NFKC form, phrased to follow the quoted name. */
export const nfkcRule = (name: string): string | undefined => {
  const normal = name.normalize('NFKC')
  return normal === name ? undefined : `is not in Unicode normal form NFKC (it normalizes to ${JSON.stringify(normal)}); write it as that`
}

const LOOK_ALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ϲ: 'c',
  ϳ: 'j',
  // Latin and digits
  ı: 'i',
  ɡ: 'g',
  ɑ: 'a',
  '0': 'o',
  '1': 'l',
  '|': 'l',
  _: '-',
  '‐': '-',
  '‑': '-',
  '–': '-',
  '—': '-',
}

/**
 * The form two names share when a reader could take one for the other. Capital I and small l are one
 * stroke in most fonts (`Ideas`, `ldeas`), and case is folded, so i, I, l, 1 and | all meet at "l".
 */
export const skeleton = (name: string): string =>
  (ASCII.test(name) ? name.toLowerCase().replace(/[01|_i]/g, (ch) => ASCII_ALIKES[ch]!) : unicodeSkeleton(name)).replace(/rn/g, 'm').replace(/vv/g, 'w')

const unicodeSkeleton = (name: string): string =>
  [...name.normalize('NFKC').toLowerCase()]
    .map((ch) => LOOK_ALIKES[ch] ?? ch)
    .map((ch) => (ch === 'i' ? 'l' : ch))
    .join('')

// ASCII is its own NFKC form, and of the look-alikes only these are ASCII: a name of 1,000 installed
// skills is mapped in one pass, not split into characters (held equal to it by test/unit/names.test.ts)
const ASCII = /^[\x00-\x7f]*$/
const ASCII_ALIKES: Record<string, string> = {'0': 'o', '1': 'l', '|': 'l', _: '-', i: 'l'}

/** An existing name that differs from `name` but looks like it, or undefined (one skeleton each, no index kept). */
export const confusableWith = (name: string, existing: Iterable<string>): string | undefined => {
  const wanted = skeleton(name)
  // an ASCII name's skeleton is no longer than the name (rn and vv become one letter): one shorter than
  // `wanted` cannot match, and 1,000 names in a folder are passed over without a skeleton each
  for (const other of existing) if (other !== name && !(other.length < wanted.length && ASCII.test(other)) && skeleton(other) === wanted) return other
  return undefined
}

/**
 * Names by skeleton, so that checking n names against m costs n + m skeletons, not n * m (a plugin
 * with thousands of MCP servers made the pairwise check quadratic).
 */
export const lookAlikeIndex = (names: Iterable<string> = []) => {
  const bySkeleton = new Map<string, string[]>()
  const index = {
    add(name: string): void {
      const key = skeleton(name)
      const list = bySkeleton.get(key)
      if (!list) bySkeleton.set(key, [name])
      else if (list.length < 2 && !list.includes(name)) list.push(name)
    },
    /** a name in the index that differs from `name` but looks like it */
    confusable(name: string): string | undefined {
      return bySkeleton.get(skeleton(name))?.find((other) => other !== name)
    },
  }
  for (const name of names) index.add(name)
  return index
}
