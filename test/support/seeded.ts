/**
 * A seeded generator for the tests that compare against a reference over many made-up inputs: an LCG
 * in 32-bit integers, whose high bits pick. Written in doubles (seed * 1103515245 passes 2^53), its low
 * bits were lost, and `% n` drew 28 characters of 144.
 */
export const seededRandom = (seed: number): ((n: number) => number) => {
  let state = seed >>> 0
  return (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return (state >>> 16) % n
  }
}
