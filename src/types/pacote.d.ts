// pacote ships no types; src/core/fetch/npm.ts describes the part of its API it uses.
declare module 'pacote'
