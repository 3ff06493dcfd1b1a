/**
 * A plugin installed as Claude Code's own plugin: loadout's verified copy is offered through a
 * one-plugin marketplace that loadout owns (a `directory` source), registered in the settings'
 * `extraKnownMarketplaces` and switched on in `enabledPlugins`. Claude Code then namespaces the
 * plugin's parts (`<plugin>:<part>`) and loads every part it supports, language servers included.
 *
 * The catalog sits in the folder holding the plugin's installed revisions, because Claude Code
 * resolves a plugin's `source` only inside the marketplace folder (`../` is not followed): the
 * folder is `<copies>/`, the catalog `<copies>/.claude-plugin/marketplace.json`, the plugin
 * `./<revision>`. One marketplace per plugin, so each install owns its catalog file and its two
 * settings keys, and removing one touches nothing another install wrote.
 */

/** The marketplace name loadout registers for one installed plugin (`plugin@market` becomes `loadout-market-plugin`). */
export const nativeMarketplaceName = (id: string): string => {
  const [name, market] = id.split('@') as [string, string | undefined]
  const slug = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
  return ['loadout', slug(market ?? 'local'), slug(name)].filter((s) => s !== '').join('-')
}

/** The catalog's bytes: one plugin, at `./<revision>`. */
export const renderNativeMarketplace = (marketplace: string, plugin: {name: string; version?: string; revision: string}): string =>
  JSON.stringify(
    {
      name: marketplace,
      owner: {name: 'loadout'},
      description: 'written by loadout: the installed copy of one plugin',
      plugins: [{name: plugin.name, source: `./${plugin.revision}`, ...(plugin.version ? {version: plugin.version} : {})}],
    },
    null,
    2,
  ) + '\n'

/** The `extraKnownMarketplaces` entry: a directory source, absolute in user settings, project-relative (`./…`) in a project's. */
export const nativeMarketplaceEntry = (path: string): {source: {source: 'directory'; path: string}} => ({source: {source: 'directory', path}})

/** The `enabledPlugins` key of a plugin in its loadout marketplace. */
export const nativePluginKey = (name: string, marketplace: string): string => `${name}@${marketplace}`
