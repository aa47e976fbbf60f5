/** A streamable-HTTP MCP server on 127.0.0.1 (stateless: a server per request), written with the SDK. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-expect-error a plain ES module shared with the stdio fixture
import { makeServer } from "../fixtures/mcp/raw-tools.mjs";

export async function startMcpHttpServer(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let count = 0;
  const server = http.createServer(async (request, response) => {
    count++;
    const mcp = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
