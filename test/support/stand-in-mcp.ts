/** A stand-in MCP server over stdio, as a script's text; with --token it answers only when TOKEN was expanded. */
export const STAND_IN = `// A stand-in MCP server over stdio; with --token it answers only when TOKEN was expanded.
if (process.argv.includes('--token') && process.env.TOKEN !== 'expanded-token') process.exit(3)
let buffer = ''
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n')
process.stdin.on('data', (chunk) => {
  buffer += chunk
  let nl
  while ((nl = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, nl).trim()
    buffer = buffer.slice(nl + 1)
    if (!line) continue
    const message = JSON.parse(line)
    if (message.id === undefined) continue
    if (message.method === 'initialize')
      send({jsonrpc: '2.0', id: message.id, result: {protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: {tools: {}}, serverInfo: {name: 'stand-in', version: '1.0.0'}}})
    else if (message.method === 'tools/list') send({jsonrpc: '2.0', id: message.id, result: {tools: [{name: 'echo', description: 'Echo', inputSchema: {type: 'object'}}]}})
    else if (message.method === 'ping') send({jsonrpc: '2.0', id: message.id, result: {}})
    else send({jsonrpc: '2.0', id: message.id, error: {code: -32601, message: 'not found'}})
  }
})
`
