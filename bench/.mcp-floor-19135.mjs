import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const servers = {"fs":{"command":"/usr/bin/node","args":["/work/wt/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js","/tmp/clio-mcp-bench-4koEJT/workspace"]},"everything":{"command":"/usr/bin/node","args":["/work/wt/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"]}};
await Promise.all(Object.values(servers).map(async (server) => {
  const client = new Client({ name: "floor", version: "1" }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
  const { tools } = await client.listTools();
  for (const tool of tools) process.stdout.write(tool.name + " " + (tool.description ?? "") + "\n");
  await client.close();
}));
