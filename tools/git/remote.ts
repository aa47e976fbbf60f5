/**
 * fetch, pull and push over smart HTTP through GIT's guarded client (http-client.ts: WEB's
 * address guard, pinned connections, re-checked redirects), with an idle timeout and the
 * turn's abort signal. Credentials come from the person's config or the environment, go only
 * over https to the hosts the person named for them, and never appear in results or errors:
 * every message is scrubbed of them and of URL userinfo.
 */
import git, { type HttpClient } from "isomorphic-git";
import { ToolError } from "../errors.js";
import { hostKey } from "../network/guard.js";
import { sendGuarded, type GitNetwork } from "./http-client.js";
import { requireBranch, type Repository } from "./repository.js";
import { mergeInto, type MergeResult } from "./merge-reset.js";
import { branchState, type BranchState } from "./history.js";
import type { StatusOptions } from "./status.js";

export interface Credentials {
  username: string;
  password: string;
  /** The only hosts they are sent to, over https (GIT.credentials.hosts in the person's config). */
  hosts: readonly string[];
}

/**
 * Credentials for HTTP remotes: clio config `GIT.credentials` ({username, password} or
 * {token}, and `hosts`), else the environment: CLIO_GIT_USERNAME + CLIO_GIT_PASSWORD, or
 * GIT_TOKEN (sent as password with username CLIO_GIT_USERNAME or "x-access-token"). Either
 * way they go only to `GIT.credentials.hosts`; with no host named they go nowhere.
 */
export function resolveCredentials(configured: unknown, env: NodeJS.ProcessEnv): Credentials | undefined {
  const fromConfig = (configured ?? {}) as { username?: unknown; password?: unknown; token?: unknown; hosts?: unknown };
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const hosts = Array.isArray(fromConfig.hosts) ? fromConfig.hosts.filter((host): host is string => typeof host === "string").map(hostKey) : [];
  const configPassword = text(fromConfig.password) ?? text(fromConfig.token);
  if (configPassword) return { username: text(fromConfig.username) ?? "x-access-token", password: configPassword, hosts };
  const envPassword = text(env.CLIO_GIT_PASSWORD) ?? text(env.GIT_TOKEN);
  if (envPassword) return { username: text(env.CLIO_GIT_USERNAME) ?? "x-access-token", password: envPassword, hosts };
  return undefined;
}

const NAME_THE_HOST = (host: string) =>
  `To send them, name the host in your own ~/.clio/config.json: {"protocols": {"GIT": {"credentials": {"hosts": ["${host}"]}}}} (a project's .clio/config.json cannot do this).`;

/**
 * What isomorphic-git's onAuth gets: the credentials when the remote is https and its host is
 * one the person named; otherwise a ToolError saying why none were sent and how to allow it.
 */
export function credentialsFor(url: string, credentials: Credentials | undefined): { username: string; password: string } | Record<string, never> {
  if (credentials === undefined) return {};
  const target = new URL(url);
  const host = hostKey(target.hostname);
  if (!credentials.hosts.includes(host)) {
    throw new ToolError(
      "authentication_failed",
      `${target.origin} asked for credentials; none were sent because ${host} is not one of the hosts you named for git credentials${credentials.hosts.length ? ` (${credentials.hosts.join(", ")})` : " (none are named)"}.`,
      NAME_THE_HOST(host),
    );
  }
  if (target.protocol !== "https:") {
    throw new ToolError(
      "authentication_failed",
      `${target.origin} asked for credentials over plain http; clio sends git credentials only over https.`,
      "Use the https:// URL of the remote (git remote set-url origin https://...).",
    );
  }
  return { username: credentials.username, password: credentials.password };
}

/** Removes URL userinfo and every form of the secrets from a message. */
export function scrubSecrets(text: string, credentials?: Credentials): string {
  let scrubbed = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1");
  if (credentials) {
    const basic = Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64");
    for (const secret of [basic, credentials.password, encodeURIComponent(credentials.password)]) {
      if (secret.length >= 3) scrubbed = scrubbed.split(secret).join("***");
    }
  }
  return scrubbed;
}

export interface RemoteOptions extends StatusOptions {
  credentials?: Credentials;
  /** The guard and transport every request goes through. */
  network: GitNetwork;
  signal?: AbortSignal;
  /** Longest wait for the server to answer or send more (default 30000 ms). */
  idleTimeoutMs?: number;
}

/**
 * The guarded client, failing with `network_error` when the server is silent for
 * the idle limit and `cancelled` when the turn is aborted; either way the socket is destroyed.
 */
function guardedHttp(options: RemoteOptions): HttpClient {
  const idle = options.idleTimeoutMs ?? 30_000;
  return {
    async request(request) {
      if (options.signal?.aborted) throw new ToolError("cancelled", "The transfer was cancelled.");
      const connection = new AbortController();
      let failure: ToolError | undefined;
      const stop = (reason: ToolError) => {
        failure ??= reason;
        connection.abort();
      };
      const onCancel = () => stop(new ToolError("cancelled", "The transfer was cancelled."));
      options.signal?.addEventListener("abort", onCancel, { once: true });
      const release = () => options.signal?.removeEventListener("abort", onCancel);
      /** Waits for one step of the exchange, at most `idle` ms. */
      const guard = <Value>(step: Promise<Value>): Promise<Value> =>
        new Promise<Value>((resolve, reject) => {
          const timer = setTimeout(
            () => stop(new ToolError("network_error", `The server did not answer for ${idle / 1000} s.`, "Check that the remote is reachable, then retry.")),
            idle,
          );
          const onStop = () => reject(failure);
          connection.signal.addEventListener("abort", onStop, { once: true });
          step
            .then(resolve, (error: unknown) => reject(failure ?? error))
            .finally(() => {
              clearTimeout(timer);
              connection.signal.removeEventListener("abort", onStop);
            });
        });
      let response;
      try {
        response = await guard(sendGuarded(options.network, request, connection.signal));
      } catch (error) {
        release();
        throw error;
      }
      const iterator = response.body?.[Symbol.asyncIterator]();
      if (!iterator) {
        release();
        return response;
      }
      const body = {
        async next() {
          try {
            const step = await guard(iterator.next());
            if (step.done) release();
            return step;
          } catch (error) {
            release();
            throw error;
          }
        },
        async return() {
          release();
          connection.abort();
          return { done: true as const, value: undefined };
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return { ...response, body: body as unknown as AsyncIterableIterator<Uint8Array> };
    },
  };
}

async function remoteUrl(repository: Repository, remote: string): Promise<string> {
  const { fs, gitdir } = repository;
  const url = await git.getConfig({ fs, gitdir, path: `remote.${remote}.url` }).catch(() => undefined);
  if (typeof url === "string") return url;
  const known = (await git.listRemotes({ fs, gitdir })).map((item) => item.remote);
  throw new ToolError(
    "not_found",
    `There is no remote named ${remote}.${known.length > 0 ? ` Remotes here: ${known.join(", ")}.` : " This repository has no remotes."}`,
    "Name a configured remote (remote=origin), or add one with `git remote add NAME URL`.",
  );
}

/** Runs a network operation, turning isomorphic-git's failures into scrubbed ClioErrors. */
async function talk<Result>(repository: Repository, remote: string, options: RemoteOptions, work: (http: HttpClient) => Promise<Result>): Promise<Result> {
  const where = scrubSecrets(await remoteUrl(repository, remote), options.credentials);
  try {
    return await work(guardedHttp(options));
  } catch (error) {
    throw translateNetworkError(error, remote, where, options.credentials);
  }
}

function translateNetworkError(error: unknown, remote: string, where: string, credentials?: Credentials): ToolError {
  const scrub = (text: string) => scrubSecrets(text, credentials);
  if (ToolError.isInstance(error)) return new ToolError(error.code, scrub(`${remote} (${where}): ${error.message}`), error.hint);
  const { code, data, message } = error as { code?: string; data?: { statusCode?: number; reason?: string }; message?: string };
  const detail = scrub(message ?? String(error));
  if (code === "HttpError" && (data?.statusCode === 401 || data?.statusCode === 403)) {
    return new ToolError(
      "authentication_failed",
      `${remote} (${where}) refused the credentials (HTTP ${data.statusCode}); nothing was transferred.`,
      credentials
        ? "Check the username and password/token in GIT.credentials or CLIO_GIT_USERNAME / CLIO_GIT_PASSWORD / GIT_TOKEN."
        : 'Give credentials in your own ~/.clio/config.json: GIT.credentials {username, token, hosts: ["HOST"]}, or the environment variables CLIO_GIT_USERNAME and CLIO_GIT_PASSWORD (or GIT_TOKEN) plus GIT.credentials.hosts naming the host.',
    );
  }
  if (code === "PushRejectedError" || code === "CommitNotFetchedError" || code === "GitPushError") {
    return new ToolError("push_rejected", `${remote} rejected the push: the remote branch has commits this one does not (not a fast-forward). Nothing was changed on ${remote}.`, [
      "Pull first (",
      { action: "pull" },
      ") to merge the remote commits, then push again.",
    ]);
  }
  if (code === "HttpError" || code === "SmartHttpError" || code === "EmptyServerResponseError") {
    return new ToolError("network_error", `${remote} (${where}) answered with an error: ${detail}`, "Check the remote URL and that the server is a git smart-HTTP server.");
  }
  const system = (error as NodeJS.ErrnoException).code;
  if (system && /^E[A-Z]+$/.test(system)) {
    return new ToolError("network_error", `Could not talk to ${remote} (${where}): ${detail}`, "Check that the remote is reachable, then retry.");
  }
  return new ToolError("git_error", `${remote} (${where}): ${detail}`);
}

export interface FetchResult {
  remote: string;
  branch?: string;
  oid?: string;
  state: BranchState;
}

export async function fetchRemote(repository: Repository, remote: string, branch: string | undefined, options: RemoteOptions): Promise<FetchResult> {
  const { fs, dir, gitdir, cache } = repository;
  const result = await talk(repository, remote, options, (http) =>
    git.fetch({
      fs,
      http,
      dir,
      gitdir,
      cache,
      remote,
      ref: branch,
      singleBranch: branch !== undefined,
      tags: false,
      onAuth: (url) => credentialsFor(url, options.credentials),
    }),
  );
  return { remote, branch, oid: result.fetchHead ?? undefined, state: await branchState(repository) };
}

/** Fetches `branch` (default: the current branch's upstream, else the same name) and merges it. */
export async function pullRemote(
  repository: Repository,
  remote: string,
  branch: string | undefined,
  author: () => Promise<{ name: string; email: string }>,
  options: RemoteOptions & { now?: () => number },
): Promise<MergeResult> {
  const current = await requireBranch(repository, "pull");
  const upstream = await git.getConfig({ fs: repository.fs, gitdir: repository.gitdir, path: `branch.${current}.merge` }).catch(() => undefined);
  const remoteBranch = branch ?? (typeof upstream === "string" ? upstream.replace(/^refs\/heads\//, "") : current);
  await fetchRemote(repository, remote, remoteBranch, options);
  return mergeInto(repository, `refs/remotes/${remote}/${remoteBranch}`, author, { ...options, message: `Merge ${remote}/${remoteBranch} into ${current}` });
}

export interface PushResult {
  remote: string;
  branch: string;
  remoteBranch: string;
  oid: string;
}

/** Pushes `branch` (default: the current one) to the same name on `remote`; never forces. */
export async function pushRemote(repository: Repository, remote: string, branch: string | undefined, options: RemoteOptions): Promise<PushResult> {
  const { fs, dir, gitdir, cache } = repository;
  const local = branch ?? (await requireBranch(repository, "push"));
  const oid = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${local}` }).catch(() => {
    throw new ToolError("not_found", `There is no local branch named ${local} to push.`, ["Name an existing branch (see ", { action: "branch" }, ")."]);
  });
  const result = await talk(repository, remote, options, (http) =>
    git.push({ fs, http, dir, gitdir, cache, remote, ref: local, remoteRef: local, onAuth: (url) => credentialsFor(url, options.credentials), signal: options.signal }),
  );
  const status = result.refs[`refs/heads/${local}`];
  if (!result.ok || (status && !status.ok)) {
    const reason = scrubSecrets(status?.error ?? result.error ?? "unknown reason", options.credentials);
    if (/fast-forward|fetch first|non-fast/i.test(reason)) throw translateNetworkError({ code: "PushRejectedError" }, remote, "", options.credentials);
    throw new ToolError(
      "push_rejected",
      `${remote} rejected the push of ${local}: ${reason}. Nothing was changed on ${remote}.`,
      "Read the reason, fix it locally, then push again.",
    );
  }
  const hasUpstream = await git.getConfig({ fs, gitdir, path: `branch.${local}.remote` }).catch(() => undefined);
  if (hasUpstream === undefined) {
    await git.setConfig({ fs, gitdir, path: `branch.${local}.remote`, value: remote });
    await git.setConfig({ fs, gitdir, path: `branch.${local}.merge`, value: `refs/heads/${local}` });
  }
  return { remote, branch: local, remoteBranch: local, oid };
}
