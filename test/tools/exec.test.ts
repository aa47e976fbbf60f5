import { spawn } from "node:child_process";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { childEnvironment, commandLine, groupAlive, isSecretName, runProcess, shellQuote, type RunOptions } from "../../tools/exec/index.js";
import { newTag, releaseTag, TAG_VARIABLE } from "../../tools/exec/process-group.js";
import { eventually } from "./eventually.js";

const shell = (command: string, options: Partial<RunOptions> = {}) =>
  runProcess({ file: "/bin/sh", args: ["-c", command], cwd: os.tmpdir(), env: process.env, timeoutMs: 10_000, graceMs: 300, ...options });

describe("runProcess", () => {
  it("captures stdout, stderr and the exit code", async () => {
    const result = await shell("echo out; echo err >&2; exit 3");
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, cancelled: false, leftoversStopped: false });
    expect(result.stdout.text).toBe("out\n");
    expect(result.stderr.text).toBe("err\n");
  });

  it("runs in the given folder", async () => {
    const result = await shell("pwd", { cwd: "/" });
    expect(result.stdout.text).toBe("/\n");
  });

  it("closes stdin so a command waiting for input ends at once", async () => {
    const result = await shell("cat; read line; echo after-read:$?");
    expect(result.timedOut).toBe(false);
    expect(result.stdout.text).toBe("after-read:1\n");
  });

  it("keeps a head and a tail of a flood and counts what it dropped", async () => {
    const result = await shell("yes | head -c 20000000; echo END", { outputLimit: 64 * 1024 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.totalBytes).toBe(20_000_004);
    expect(result.stdout.droppedBytes).toBe(20_000_004 - 64 * 1024);
    expect(result.stdout.text).toMatch(/^y\ny\n/);
    expect(result.stdout.text).toContain("bytes dropped");
    expect(result.stdout.text.endsWith("y\nEND\n")).toBe(true);
    expect(result.stdout.text.length).toBeLessThan(64 * 1024 + 100);
  });

  it("keeps memory bounded under an endless `yes`, stopping it at the timeout", async () => {
    const result = await shell("yes", { timeoutMs: 1000, outputLimit: 64 * 1024 });
    expect(result.timedOut).toBe(true);
    expect(result.stdout.totalBytes).toBeGreaterThan(1024 * 1024);
    expect(result.stdout.text.length).toBeLessThan(64 * 1024 + 100);
    expect(result.stdout.text).toContain("bytes dropped");
  });

  it("kills the whole group on timeout, even a background child holding stdout", async () => {
    const result = await shell("sleep 999 & echo started; sleep 999", { timeoutMs: 1000 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGTERM" });
    expect(result.stdout.text).toBe("started\n");
    expect(await eventually(() => !groupAlive(result.pid!))).toBe(true);
  });

  it("uses SIGKILL when the group ignores SIGTERM", async () => {
    const result = await shell("trap '' TERM; while :; do sleep 0.1; done", { timeoutMs: 800, graceMs: 300 });
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(await eventually(() => !groupAlive(result.pid!))).toBe(true);
  });

  it("does not wait for processes a finished command left behind, and stops them", async () => {
    const result = await shell("sleep 999 & echo done", { timeoutMs: 20_000 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, leftoversStopped: true });
    expect(result.stdout.text).toBe("done\n");
    expect(await eventually(() => !groupAlive(result.pid!))).toBe(true);
  });

  it("stops the group when the abort signal fires", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await shell("sleep 999", { signal: controller.signal });
    expect(result).toMatchObject({ cancelled: true, timedOut: false });
    expect(await eventually(() => !groupAlive(result.pid!))).toBe(true);
  });

  it("reports a program that cannot start", async () => {
    const result = await runProcess({ file: "clio-no-such-program", args: [], cwd: os.tmpdir(), env: process.env, timeoutMs: 5000 });
    expect(result.exitCode).toBeNull();
    expect(result.startError).toContain("ENOENT");
  });

  it("never rejects, even when spawn refuses its arguments at once (a NUL byte)", async () => {
    const result = await runProcess({ file: "/bin/sh", args: ["-c", "echo a\0b"], cwd: os.tmpdir(), env: process.env, timeoutMs: 5000 });
    expect(result).toMatchObject({ exitCode: null, startError: expect.stringContaining("null bytes") });
  });
});

describe("child environment", () => {
  it("drops provider keys and anything named like a credential", () => {
    const env = childEnvironment({
      PATH: "/bin",
      HOME: "/home/me",
      OPENAI_API_KEY: "sk-1",
      deepseek_api_key: "sk-2",
      GITHUB_TOKEN: "t",
      AWS_SECRET_ACCESS_KEY: "s",
      DB_PASSWORD: "p",
      MY_SECRET_THING: "x",
      KEYBOARD: "us",
      TOKENIZERS_PARALLELISM: "false",
    });
    expect(env).toEqual({ PATH: "/bin", HOME: "/home/me", KEYBOARD: "us", TOKENIZERS_PARALLELISM: "false" });
    expect(isSecretName("ANTHROPIC_API_KEY")).toBe(true);
    expect(isSecretName("OPENROUTER_API_KEY")).toBe(true);
  });

  it("drops credentials whose names run the word on (PGPASSWORD, npm's _authToken) or are personal access tokens", () => {
    for (const name of [
      "PGPASSWORD",
      "NPM_CONFIG__AUTHTOKEN",
      "npm_config_//registry.npmjs.org/:_authToken",
      "NPM_CONFIG__AUTH",
      "GITHUB_PAT",
      "AZURE_DEVOPS_EXT_PAT",
      "MYSQL_PWD",
      "SLACK_BOTTOKEN",
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ["PWD", "OLDPWD", "PATH", "PATCH_LEVEL", "KEYBOARD", "TOKENIZERS_PARALLELISM", "XAUTHORITY", "HTTP_PROXY_HOST"]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });

  it("drops connection strings, webhooks, cookies, agent sockets and kubeconfigs, by name", () => {
    for (const name of [
      "DATABASE_URL",
      "SENTRY_DSN",
      "SLACK_WEBHOOK",
      "SLACK_WEBHOOK_URL",
      "COOKIE",
      "SESSION_COOKIES",
      "SSH_AUTH_SOCK",
      "KUBECONFIG",
      "GPG_AGENT_INFO",
      "DOCKER_AUTH_CONFIG",
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it("drops values that carry credentials whatever the name", () => {
    const env = childEnvironment({
      PATH: "/bin",
      UPSTREAM: "postgres://app:hunter2@db.internal:5432/main",
      MIRROR: "https://user:pa%40ss@mirror.example/repo",
      NOTIFY: "https://hooks.slack.com/services/T000/B000/XXXX",
      CHAT: "https://discord.com/api/webhooks/1/abc",
      HEADERS: "session=abc123; csrftoken=xyz",
      GH: "ghp_abcdefghijklmnopqrstuvwxyz0123",
      AWS_ID: "AKIAABCDEFGHIJKLMNOP",
      JWT: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.signature_part",
      HOMEPAGE: "https://example.com/docs?a=b",
      EMAIL_LIKE: "https://git@example.com/repo.git",
    });
    expect(env).toEqual({ PATH: "/bin", HOMEPAGE: "https://example.com/docs?a=b", EMAIL_LIKE: "https://git@example.com/repo.git" });
  });

  it("passes names in include whatever they hold, and never names in exclude", () => {
    const env = { DATABASE_URL: "postgres://a:b@h/d", AWS_PROFILE: "dev", AWS_REGION: "eu", LANG: "C" };
    expect(childEnvironment(env, { include: ["database_url"], exclude: ["AWS_*"] })).toEqual({ DATABASE_URL: "postgres://a:b@h/d", LANG: "C" });
  });

  it("passes names listed to keep", () => {
    expect(childEnvironment({ NPM_TOKEN: "n", GH_TOKEN: "g" }, ["npm_token"])).toEqual({ NPM_TOKEN: "n" });
  });

  it("really keeps keys from a child's env", async () => {
    const result = await shell("env", { env: childEnvironment({ ...process.env, OPENAI_API_KEY: "sk-leak-test" }) });
    expect(result.stdout.text).toContain("PATH=");
    expect(result.stdout.text).not.toContain("sk-leak-test");
  });
});

describe("shell quoting", () => {
  it("quotes arguments so the shell passes them through unchanged", async () => {
    const args = ["plain", "two words", "it's", "$HOME", "`id`", "a;b", ""];
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const result = await shell(commandLine(`printf '%s\\n'`, args));
    expect(result.stdout.text).toBe(args.map((arg) => `${arg}\n`).join(""));
  });
});

describe("a released tag", () => {
  it("is swept again shortly after: a process that shows the tag only after the first sweep (as one caught mid-exec does) is killed too", async () => {
    const tag = newTag();
    expect(releaseTag(tag)).toBe(0);
    const late = spawn("sleep", ["30"], { env: { ...process.env, [TAG_VARIABLE]: tag }, stdio: "ignore" });
    try {
      expect(await eventually(() => late.signalCode !== null || late.exitCode !== null, 3000)).toBe(true);
      expect(late.signalCode).toBe("SIGKILL");
    } finally {
      late.kill("SIGKILL");
    }
  });
});
