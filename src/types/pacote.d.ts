// pacote ships no types; src/core/kernel/sources/npm.ts describes the part of its API it uses.
declare module 'pacote'
