import type {ManifestFormat} from '../format.js'
import {GEMINI_MANIFEST, readGeminiExtension} from './read.js'

/** Gemini CLI extensions: read and checked; not written yet (no convert, no scaffold). */
export const gemini: ManifestFormat = {
  id: 'gemini',
  name: 'Gemini CLI',
  files: [{path: GEMINI_MANIFEST}],
  schema: 'gemini-extension',
  secondary: true,
  read: readGeminiExtension,
  checks: async () => ({rules: (await import('./rules.js')).geminiRules}),
}
