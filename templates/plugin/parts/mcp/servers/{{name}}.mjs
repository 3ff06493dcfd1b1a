#!/usr/bin/env node
// A minimal MCP server over stdio (newline-delimited JSON-RPC 2.0) with one tool, "hello".
// It needs nothing but Node.js; replace the tool with your own.
import {createInterface} from 'node:readline'

const SERVER = {name: '{{name}}', version: '0.1.0'}
const TOOLS = [
  {
    name: 'hello',
    description: 'Greets someone by name.',
    inputSchema: {type: 'object', properties: {name: {type: 'string', description: 'who to greet'}}, required: ['name']},
  },
]

const send = (message) => process.stdout.write(`${JSON.stringify({jsonrpc: '2.0', ...message})}\n`)

const handle = (request) => {
  switch (request.method) {
    case 'initialize':
      return {protocolVersion: request.params?.protocolVersion ?? '2025-06-18', capabilities: {tools: {}}, serverInfo: SERVER}
    case 'ping':
      return {}
    case 'tools/list':
      return {tools: TOOLS}
    case 'tools/call': {
      if (request.params?.name !== 'hello') throw Object.assign(new Error(`unknown tool ${request.params?.name}`), {code: -32602})
      const who = String(request.params?.arguments?.name ?? 'world')
      return {content: [{type: 'text', text: `Hello, ${who}!`}]}
    }
    default:
      throw Object.assign(new Error(`method not found: ${request.method}`), {code: -32601})
  }
}

createInterface({input: process.stdin}).on('line', (line) => {
  if (line.trim() === '') return
  let request
  try {
    request = JSON.parse(line)
  } catch {
    send({id: null, error: {code: -32700, message: 'parse error'}})
    return
  }
  if (request.id === undefined) return // a notification, such as notifications/initialized
  try {
    send({id: request.id, result: handle(request)})
  } catch (error) {
    send({id: request.id, error: {code: error.code ?? -32603, message: error.message}})
  }
})
