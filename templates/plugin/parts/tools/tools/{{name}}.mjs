#!/usr/bin/env node
// A cst-agent exec tool: it reads its arguments as a JSON object on stdin (shaped by the
// "parameters" JSON Schema in plugin.json) and prints its answer on stdout.
let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (input += chunk))
process.stdin.on('end', () => {
  let args = {}
  try {
    args = input.trim() === '' ? {} : JSON.parse(input)
  } catch {
    process.stderr.write('{{name}}: the arguments are not JSON\n')
    process.exit(2)
  }
  const text = typeof args.text === 'string' ? args.text : ''
  process.stdout.write(`${text.split(/\s+/).filter(Boolean).length} words\n`)
})
