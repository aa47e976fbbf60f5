/**
 * GIT's network actions: fetch, pull and push. Credentials go only to the configured hosts, over
 * https; remotes on this machine or a private network need `GIT.allowHosts`.
 */
import { shortOid } from "../../tools/git/format.js";
import type { RemoteOptions } from "../../tools/git/remote.js";
import type { Resolver } from "../../tools/network/guard.js";
import type { Transport } from "../../tools/network/transport.js";
import { loadOnce } from "../contract/load-once.js";
import { defineAction, type ProtocolEnvironment } from "../contract/protocol.js";
import { mergeOutput } from "./branch-actions.js";
import { authorFor, commitClock, type GitTools, inRepository, ref, settingsOf } from "./repository-access.js";

/** The network I/O GIT stands on; tests pass their own resolver or a transport trusting a test CA. */
export interface GitSeams {
  resolve?: Resolver;
  transport?: Transport;
}

const loadGuard = loadOnce(() => import("../../tools/network/guard.js"));
const loadTransport = loadOnce(() => import("../../tools/network/transport.js"));

/** The credentials, network seams, idle limit and signal a network action passes to the tools. */
async function remoteOptions(environment: ProtocolEnvironment, signal: AbortSignal, tools: GitTools, seams: GitSeams): Promise<RemoteOptions> {
  const settings = settingsOf(environment);
  const allowHosts = Array.isArray(settings.allowHosts) ? settings.allowHosts.filter((host): host is string => typeof host === "string") : [];
  const network = {
    resolve: seams.resolve ?? (await loadGuard()).systemResolver,
    transport: seams.transport ?? (await loadTransport()).nodeTransport,
    allowHosts,
  };
  return { credentials: tools.resolveCredentials(settings.credentials, environment.env), network, signal, idleTimeoutMs: settings.networkTimeoutMs, env: environment.env };
}

const remote = ref("The remote's name (default origin)");
const remoteBranch = ref("The branch (default: the current branch)");

/** GIT.fetch over the given network seams. */
export function fetchAction(seams: GitSeams) {
  return defineAction<{ remote: string | undefined; branch: string | undefined }>({
    summary: "Download a remote's commits (remote default origin; branch default all) without changing local branches.",
    permission: "network",
    parameters: { remote, branch: remoteBranch },
    describe: (args) => `Fetching ${args.branch ? `${args.branch} ` : ""}from ${args.remote ?? "origin"}`,
    handler: (args, { environment, signal }) =>
      inRepository(environment, async (repository, tools) => {
        const result = await tools.fetchRemote(repository, args.remote ?? "origin", args.branch, await remoteOptions(environment, signal, tools, seams));
        const fetched = `Fetched ${result.remote}${result.branch ? `/${result.branch}` : ""}${result.oid ? ` (${shortOid(result.oid)})` : ""}.`;
        return { output: `${fetched}\n${tools.formatBranchHeader(result.state)}`, data: result };
      }),
  });
}

/** GIT.pull over the given network seams. */
export function pullAction(seams: GitSeams) {
  return defineAction<{ remote: string | undefined; branch: string | undefined }>({
    summary: "Fetch a remote branch (default: the current one's upstream) and merge it into the current branch.",
    permission: "network",
    parameters: { remote, branch: remoteBranch },
    describe: (args) => `Pulling ${args.branch ?? "the current branch"} from ${args.remote ?? "origin"}`,
    handler: (args, { environment, signal }) =>
      inRepository(environment, async (repository, tools) => {
        const remoteName = args.remote ?? "origin";
        const options = { ...(await remoteOptions(environment, signal, tools, seams)), now: commitClock(environment) };
        const result = await tools.pullRemote(repository, remoteName, args.branch, authorFor(repository, environment, tools), options);
        return mergeOutput(result, `${remoteName}/${args.branch ?? result.branch}`);
      }),
  });
}

/** GIT.push over the given network seams. */
export function pushAction(seams: GitSeams) {
  return defineAction<{ remote: string | undefined; branch: string | undefined }>({
    summary: "Push a branch (default: the current one) to the same name on remote (default origin). Never forces.",
    permission: "network",
    parameters: { remote, branch: remoteBranch },
    describe: (args) => `Pushing ${args.branch ?? "the current branch"} to ${args.remote ?? "origin"}`,
    handler: (args, { environment, signal }) =>
      inRepository(environment, async (repository, tools) => {
        const result = await tools.pushRemote(repository, args.remote ?? "origin", args.branch, await remoteOptions(environment, signal, tools, seams));
        return { output: `Pushed ${result.branch} to ${result.remote} (${shortOid(result.oid)}).`, data: result, description: `Pushed ${result.branch} to ${result.remote}` };
      }),
  });
}
