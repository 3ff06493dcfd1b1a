/** JSON and JSONC config texts of every layout loadout meets, each with the path an edit goes to. */
export interface Shape {
  name: string
  text: string
  path: string[]
  /** Whether removeJsonMember gives the original back even without the undo record. */
  exactWithoutUndo: boolean
}

export const SHAPES: Shape[] = [
  {name: 'empty file', text: '', path: ['mcpServers'], exactWithoutUndo: false},
  {name: 'whitespace-only file', text: '\n\n', path: ['mcpServers'], exactWithoutUndo: false},
  {name: 'empty object', text: '{}', path: ['mcpServers'], exactWithoutUndo: false},
  {name: 'empty object, newline', text: '{}\n', path: [], exactWithoutUndo: true},
  {name: 'empty object spread over lines', text: '{\n}\n', path: [], exactWithoutUndo: false},
  {name: 'empty object with spaces', text: '{ }', path: [], exactWithoutUndo: false},
  {name: 'parent missing (created)', text: '{\n  "numStartups": 3\n}\n', path: ['mcpServers'], exactWithoutUndo: false},
  {name: 'two parents missing', text: '{\n  "a": 1\n}\n', path: ['projects', '/home/u/p', 'mcpServers'], exactWithoutUndo: false},
  {
    name: 'pretty, 2 spaces, existing servers',
    text: '{\n  "numStartups": 3,\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  },\n  "tipsHistory": {}\n}\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {
    name: 'pretty, empty mcpServers',
    text: '{\n  "numStartups": 3,\n  "mcpServers": {},\n  "theme": "dark"\n}\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {
    name: 'nested path, existing',
    text: '{\n  "projects": {\n    "/home/u/p": {\n      "mcpServers": {\n        "a": {"command": "a"}\n      }\n    }\n  }\n}\n',
    path: ['projects', '/home/u/p', 'mcpServers'],
    exactWithoutUndo: true,
  },
  {
    name: 'CRLF',
    text: '{\r\n  "mcpServers": {\r\n    "other": {\r\n      "command": "x"\r\n    }\r\n  }\r\n}\r\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {name: 'CRLF, parent missing', text: '{\r\n  "a": 1\r\n}\r\n', path: ['mcpServers'], exactWithoutUndo: false},
  {name: 'tabs', text: '{\n\t"mcpServers": {\n\t\t"other": {\n\t\t\t"command": "x"\n\t\t}\n\t}\n}', path: ['mcpServers'], exactWithoutUndo: true},
  {name: '4 spaces', text: '{\n    "mcpServers": {\n        "other": {"command": "x"}\n    }\n}\n', path: ['mcpServers'], exactWithoutUndo: true},
  {name: 'minified', text: '{"a":1,"mcpServers":{"other":{"command":"x"}},"z":[1,2]}', path: ['mcpServers'], exactWithoutUndo: true},
  {name: 'minified, parent missing', text: '{"a":1,"z":[1,2]}', path: ['mcpServers'], exactWithoutUndo: false},
  {name: 'one line with spaces', text: '{ "mcpServers": { "a": 1, "b": 2 } }', path: ['mcpServers'], exactWithoutUndo: true},
  {
    name: 'inline object in a pretty file',
    text: '{\n  "mcpServers": {"a": {"command": "a"}},\n  "z": 1\n}\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {name: 'closing brace on the last line', text: '{\n  "mcpServers": {\n    "a": 1}}', path: ['mcpServers'], exactWithoutUndo: true},
  {
    name: 'JSONC comments around and inside',
    text: [
      '// Cursor MCP config',
      '{',
      '  /* servers */',
      '  "mcpServers": { // the servers',
      '    "a": {"command": "x"}, // first',
      '    // before b',
      '    "b": {"command": "y"} /* after b */',
      '  }, // after',
      '  "z": [1, /* two */ 2]',
      '}',
      '// end',
      '',
    ].join('\n'),
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {
    name: 'JSONC, comment-only empty object',
    text: '{\n  "mcpServers": {\n    // add servers here\n  }\n}\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {name: 'JSONC, trailing commas', text: '{\n  "mcpServers": {\n    "a": 1,\n  },\n  "z": [1, 2,],\n}\n', path: ['mcpServers'], exactWithoutUndo: true},
  {name: 'JSONC, inline trailing comma', text: '{"mcpServers": {"a": 1, "b": 2,}}', path: ['mcpServers'], exactWithoutUndo: true},
  {
    name: 'unicode and escapes',
    text: '{\n  "\\u006dcpServers": {\n    "caf\\u00e9 \\"q\\"": {"command": "\\\\bin\\\\x", "args": ["\\n", "\\ud83d\\ude00", "ü"]}\n  },\n  "ä\\/b": "\\u2028"\n}\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
  {name: 'byte-order mark', text: '\uFEFF{\n  "mcpServers": {\n    "a": 1\n  }\n}\n', path: ['mcpServers'], exactWithoutUndo: true},
  {name: 'byte-order mark, empty', text: '\uFEFF', path: ['mcpServers'], exactWithoutUndo: false},
  {
    name: 'duplicate key (the last one counts)',
    text: '{\n  "mcpServers": {"a": 1},\n  "mcpServers": {\n    "b": 2\n  }\n}\n',
    path: ['mcpServers'],
    exactWithoutUndo: true,
  },
]
