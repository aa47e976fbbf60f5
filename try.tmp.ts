import { parse } from "./grammar/index.js";
import { loadBuiltinProtocols } from "./src/registry.js";
import { callVocabularyOf } from "./src/call-vocabulary.js";
const registry = await loadBuiltinProtocols();
const v = callVocabularyOf(registry);
const samples = [
  '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>',
  '<tool_call>\n<function=execute_command>\n<parameter=command>\nnpm test\n</parameter>\n</function>\n</tool_call>',
  'Sure.\n{"name": "FILE_OP", "arguments": {"action": "read", "path": "a.ts"}}\n',
  '<FILE_OP><action>read</action><path>a.ts</path></FILE_OP>',
  '<read_file>\n<path>a.ts</path>\n</read_file>',
  'FILE_OP(action="read", path="a.ts")',
  'FILE_OP.read(path="a.ts")',
  '[FILE_OP(action="read", path="a.ts")]',
  '[ FILE_OP:action=read:path="a.ts"]',
  '[FILE_OP :action=read:path="a.ts"]',
  '[FILE OP:action=read:path="a.ts"]',
  '[FILE_OP action=read path="a.ts"]',
  '[FILE_OP|action=read|path="a.ts"]',
  '[FILE_OP:{"action":"read","path":"a.ts"}]',
  '[FILE_OP.read:path="a.ts"]',
  '[FILE_OP\n:action=read:path="a.ts"]',
  '［FILE_OP：action=read：path="a.ts"］',
  '[FILE_OP:action=read:path="a.ts"] and <tool_call>{"name":"nope","arguments":{}}</tool_call>',
  '[NOTE] see [docs](http://x) and [GIT history] and {not json}\nprint(x)',
  '```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```',
];
for (const s of samples) console.log(JSON.stringify(s).slice(0,70), "\n   ", JSON.stringify(parse(s, v), (k, val) => k === "span" ? undefined : val));
for (const s of ['```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```\n[FILE_OP:action=read:path="b"]', 'x `<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>` y', '> <read_file><path>a</path></read_file>\n\nok', '[FILE_OP:action=write:path="x":content="<tool_call>{\\"name\\":\\"read_file\\",\\"arguments\\":{\\"path\\":\\"a\\"}}</tool_call>"]'])
  console.log(JSON.stringify(s).slice(0,70), "\n   ", JSON.stringify(parse(s, v), (k, val) => k === "span" ? undefined : val));
