import { parse } from "./grammar/index.js";
const samples = [
  '[FILE_OP:action=write:path="a.md":content="He said "hi" to me"]\nnext [FILE_OP:action=read:path="b"]',
  '[FILE_OP:action=write:path="a.md":content="line one\nline two [EXEC:action=run:command="rm -rf x"]\n[EXEC:action=run:command="rm"]\nend"]\n[FILE_OP:action=read:path="ok"]',
  '[FILE_OP:action=read:path="a.md" limit=3]',
  '[FILE_OP:action=write:path="a.sh":content<<EOF\ncat <<EOF\nhi\nEOF\n[EXEC:action=run:command="rm"]\nEOF\n]\n[FILE_OP:action=read:path="ok"]',
  '[FILE_OP:action=write:path="a.sh":content<<EOF\nhello\n  EOF\n]',
  '[FILE_OP:action=write:path="a.sh":content<<EOF\nhello\nEOF]',
  '[FILE_OP:action=write:path="a.sh":content<<EOF\nhello\n',
  '[FILE_OP:action=write:path="a":content="bad \\q escape"]',
];
for (const s of samples) { const r = parse(s); console.log(JSON.stringify(s).slice(0, 80)); for (const c of r.commands) console.log("  CMD", c.protocol, JSON.stringify(c.parameters.map(p=>[p.key,p.text]))); for (const e of r.errors) console.log("  ERR", e.code, e.message, "\n   HINT", JSON.stringify(e.hint)); }
