/**
 * One connection to an MCP server through the official SDK client: a program started over
 * stdio, or a streamable-HTTP address. It starts on first use, within a start timeout; each call
 * has its own timeout and the caller's abort signal. A server that exits is noticed (its last
 * stderr lines kept for the message) and started again on the next use. Every started program
 * is stopped when clio exits, even when nobody closed the connection.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolError } from "../errors.js";

/** A server as the config declares it (the shape Claude Code and Claude Desktop use, plus clio's timeouts). */
export interface McpServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Folder the program starts in (default: the workspace root). */
  cwd?: string;
  /** A streamable-HTTP server's address, instead of command. */
  url?: string;
  headers?: Record<string, string>;
  /** Seconds to wait for the server to start and list its tools (default 30). */
  startTimeout?: number;
  /** Seconds a tool call may take (default 120). */
  callTimeout?: number;
}

/** A tool as the server lists it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; title?: string };
}

export interface McpCallResult {
  content: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpConnectionOptions {
  /** The server's key in the config (`fs`), used in every message. */
  name: string;
  config: McpServerConfig;
  /** Where a program starts when the config gives no cwd. */
  cwd: string;
  /** Called with the server's stderr lines and the connection's decisions. */
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

const DEFAULT_START_TIMEOUT_S = 30;
const DEFAULT_CALL_TIMEOUT_S = 120;
const STDERR_LINES_KEPT = 20;
const MAX_TOOL_PAGES = 50;

/** Programs started by any connection, stopped at exit as a last resort. */
const startedPids = new Set<number>();
let exitHookInstalled = false;
function trackPid(pid: number): void {
  startedPids.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const started of startedPids) {
      try {
        process.kill(started, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
  });
}

interface Live {
  client: Client;
  transport: Transport;
  pid?: number;
  tools?: McpTool[];
  /** The server exited or the connection dropped: the next use starts it again. */
  dead?: boolean;
  /** clio is stopping it on purpose. */
  stopping?: boolean;
}

export class McpConnection {
  private current: Live | undefined;
  private starting: Promise<Live> | undefined;
  private stderrTail: string[] = [];
  private exitNote: string | undefined;

  constructor(private readonly options: McpConnectionOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** The pid of the running program (stdio servers), for tests and logs. */
  pid(): number | undefined {
    return this.current?.dead ? undefined : this.current?.pid;
  }

  /** The server's tools, starting it if needed. */
  async tools(): Promise<McpTool[]> {
    const live = await this.connection();
    if (live.tools) return live.tools;
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await live.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.startTimeoutMs() });
      tools.push(...(listed.tools as McpTool[]));
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    live.tools = tools;
    return tools;
  }

  /** Calls a tool; throws ToolError `timeout`, `cancelled` or `exec_failed` naming the server. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs = this.callTimeoutMs()): Promise<McpCallResult> {
    const live = await this.connection();
    try {
      const result = await live.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs });
      return result as McpCallResult;
    } catch (error) {
      if (signal.aborted) throw new ToolError("cancelled", `The call to ${tool} on the MCP server ${this.name} was cancelled.`);
      const message = (error as Error).message ?? String(error);
      if (/timed out|RequestTimeout|-32001/i.test(message)) {
        throw new ToolError(
          "timeout",
          `The MCP server ${this.name} did not answer ${tool} within ${(timeoutMs / 1000).toFixed(0)} s.`,
          `The server may be stuck; raise mcpServers.${this.name}.callTimeout in the config if the tool is slow.`,
        );
      }
      throw new ToolError(
        "exec_failed",
        `The MCP server ${this.name} failed on ${tool}: ${message}${this.exitDetails()}`,
        "The server is started again on the next call; check its configuration if this repeats.",
      );
    }
  }

  /** Stops the server (stdin closed, then SIGTERM, then SIGKILL); a later use starts it again. */
  async close(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const live = this.current;
    this.current = undefined;
    if (live) await this.shutDown(live);
  }

  private startTimeoutMs(): number {
    return (this.options.config.startTimeout ?? DEFAULT_START_TIMEOUT_S) * 1000;
  }

  private callTimeoutMs(): number {
    return (this.options.config.callTimeout ?? DEFAULT_CALL_TIMEOUT_S) * 1000;
  }

  private connection(): Promise<Live> {
    if (this.current && !this.current.dead) return Promise.resolve(this.current);
    this.starting ??= this.start()
      .then((live) => {
        this.current = live;
        return live;
      })
      .finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  private async start(): Promise<Live> {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { config } = this.options;
    this.stderrTail = [];
    this.exitNote = undefined;
    const transport = await this.transport(config);
    const client = new Client({ name: "clio", version: "0.1.0" }, { capabilities: {} });
    const live: Live = { client, transport };
    transport.onclose = () => {
      live.dead = true;
      if (live.pid !== undefined) startedPids.delete(live.pid);
      if (live.stopping) return;
      this.exitNote = "\nThe server exited.";
      this.options.log?.("warn", `MCP ${this.name}: the connection closed`);
    };
    // A server that writes other things to stdout (log lines, a banner) keeps working: its
    // first such error is a warning naming it, the rest are details.
    let errorsSeen = 0;
    client.onerror = (error) => {
      const first = errorsSeen++ === 0;
      this.options.log?.(first ? "warn" : "debug", `MCP ${this.name}: ${first ? "ignored what is not MCP on its stdout or connection: " : ""}${error.message}`);
    };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = Symbol("start timeout");
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut), this.startTimeoutMs());
    });
    try {
      await Promise.race([client.connect(transport, { timeout: this.startTimeoutMs() }), timeout]);
      const pid = (transport as { pid?: number | null }).pid;
      if (typeof pid === "number") {
        live.pid = pid;
        trackPid(pid);
      }
      this.options.log?.("info", `MCP ${this.name}: started${live.pid === undefined ? "" : ` (pid ${live.pid})`}`);
    } catch (error) {
      // Stopped first, so the message carries what the server wrote to stderr until then.
      await this.shutDown(live);
      if (error === timedOut || /timed out|-32001/i.test((error as Error).message ?? "")) throw this.startTimeout();
      throw this.startFailure(error as Error);
    } finally {
      clearTimeout(timer);
    }
    return live;
  }

  private async transport(config: McpServerConfig): Promise<Transport> {
    if (config.url !== undefined) {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } });
    }
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const transport = new StdioClientTransport({
      command: config.command ?? "",
      args: config.args ?? [],
      env: config.env ?? {},
      cwd: config.cwd ?? this.options.cwd,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue;
        this.stderrTail.push(line.slice(0, 400));
        if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
        this.options.log?.("debug", `MCP ${this.name} stderr: ${line}`);
      }
    });
    return transport;
  }

  private startTimeout(): ToolError {
    return new ToolError(
      "timeout",
      `The MCP server ${this.name} did not start within ${(this.startTimeoutMs() / 1000).toFixed(0)} s.${this.exitDetails()}`,
      `Check mcpServers.${this.name} in the config (run the command by hand to see it start), or raise its startTimeout.`,
    );
  }

  private startFailure(error: Error): ToolError {
    const { config } = this.options;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return new ToolError(
        "exec_failed",
        `The MCP server ${this.name} could not start: the program ${JSON.stringify(config.command)} was not found.`,
        `Install it, or fix mcpServers.${this.name}.command in the config (a program on PATH or an absolute path).`,
      );
    }
    const where = config.url ?? [config.command, ...(config.args ?? [])].join(" ");
    return new ToolError(
      "exec_failed",
      `The MCP server ${this.name} (${where}) could not start: ${error.message}${this.exitDetails()}`,
      `Run the server by hand to see why, then fix mcpServers.${this.name} in the config.`,
    );
  }

  /** The server's last stderr lines, for a message. */
  private exitDetails(): string {
    const tail = this.stderrTail.slice(-5).join("\n");
    return `${this.exitNote ?? ""}${tail === "" ? "" : `\nIts last stderr lines:\n${tail}`}`;
  }

  private async shutDown(live: Live): Promise<void> {
    live.stopping = true;
    try {
      await live.client.close();
    } catch {
      // The transport closes its program below regardless.
    }
    await live.transport.close().catch(() => undefined);
    if (live.pid !== undefined) startedPids.delete(live.pid);
    this.options.log?.("info", `MCP ${this.name}: stopped`);
  }
}
