/** The permission policy on its own: modes, fail-closed, allow and deny rules, "always". */
import { describe, expect, it } from "vitest";
import { PermissionPolicy, type PermissionAnswer, type PermissionMode, type PermissionRequest } from "../../src/manager/permissions.js";
import type { PermissionClass } from "../../protocols/contract/protocol.js";

function request(permissionClass: PermissionClass, subject = "x", protocol = "EXEC", action = "run"): PermissionRequest {
  return { protocol, action, permissionClass, description: `${protocol}.${action} ${subject}`, subject };
}

async function verdictOf(mode: PermissionMode, permissionClass: PermissionClass, answer?: PermissionAnswer): Promise<string> {
  const policy = new PermissionPolicy(mode, {}, answer ? async () => answer : undefined);
  const verdict = await policy.decide(request(permissionClass));
  return verdict.allowed ? (verdict.asked ? "asked" : "runs") : "refused";
}

describe("modes", () => {
  it("follow the documented table, with a person to ask", async () => {
    const table: Record<PermissionMode, string[]> = {
      plan: ["runs", "refused", "refused", "refused"],
      ask: ["runs", "asked", "asked", "asked"],
      "auto-edit": ["runs", "runs", "asked", "asked"],
      yolo: ["runs", "runs", "runs", "runs"],
    };
    for (const [mode, expected] of Object.entries(table)) {
      const got = [];
      for (const permissionClass of ["read", "write", "exec", "network"] as const) got.push(await verdictOf(mode as PermissionMode, permissionClass, "yes"));
      expect({ mode, got }).toEqual({ mode, got: expected });
    }
  });

  it("refuse whatever would ask when there is no one to ask", async () => {
    expect(await verdictOf("ask", "write")).toBe("refused");
    expect(await verdictOf("ask", "network")).toBe("refused");
    expect(await verdictOf("auto-edit", "exec")).toBe("refused");
    expect(await verdictOf("auto-edit", "write")).toBe("runs");
  });
});

describe("a verdict without asking", () => {
  it("is decide's verdict whenever decide asks no one, and undefined exactly when it would ask", async () => {
    const rules = { allow: ["EXEC:run:ls"], deny: ["EXEC:run:rm *"] };
    for (const mode of ["plan", "ask", "auto-edit", "yolo"] as const) {
      for (const permissionClass of ["read", "write", "exec", "network"] as const) {
        for (const subject of ["ls", "rm -rf x", "make"]) {
          const asked: string[] = [];
          const policy = new PermissionPolicy(mode, rules, async (question) => (asked.push(question.description), "yes"));
          const atOnce = policy.decideWithoutAsking(request(permissionClass, subject));
          const decided = await policy.decide(request(permissionClass, subject));
          if (atOnce === undefined)
            expect({ mode, permissionClass, subject, asked: asked.length, decided }).toEqual({ mode, permissionClass, subject, asked: 1, decided: { allowed: true, asked: true } });
          else expect({ mode, permissionClass, subject, asked: asked.length, decided }).toEqual({ mode, permissionClass, subject, asked: 0, decided: atOnce });
        }
      }
    }
  });
});

describe("rules", () => {
  it("allow rules never match a subject chained with shell control characters", async () => {
    const policy = new PermissionPolicy("ask", { allow: ["EXEC:run:npm test*"] });
    const allowed = async (subject: string) => (await policy.decide(request("exec", subject))).allowed;
    expect(await allowed("npm test -- --watch")).toBe(true);
    for (const chained of [
      "npm test; rm -rf ~",
      "npm test && curl x",
      "npm test | sh",
      "npm test $(rm x)",
      "npm test `rm x`",
      "npm test\nrm x",
      "npm test\rrm x",
      "npm test > /etc/x",
    ]) {
      expect({ chained, allowed: await allowed(chained) }).toEqual({ chained, allowed: false });
    }
  });

  it("allow rules do nothing in plan mode", async () => {
    const policy = new PermissionPolicy("plan", { allow: ["EXEC"] });
    expect((await policy.decide(request("exec"))).allowed).toBe(false);
  });

  it("a deny rule's wildcard matches anything, shell control characters included, so chaining cannot slip past it", async () => {
    const policy = new PermissionPolicy("yolo", { deny: ["EXEC:run:rm *", "EXEC:run:*sudo*"] });
    const denied = async (subject: string) => !(await policy.decide(request("exec", subject))).allowed;
    expect(await denied("rm -rf build; echo done")).toBe(true);
    expect(await denied("ls && sudo reboot")).toBe(true);
    expect(await denied("echo $(sudo id)")).toBe(true);
    expect(await denied("ls -la")).toBe(false);
  });

  it("a deny rule also matches any one of the shell commands chained in the value", async () => {
    const policy = new PermissionPolicy("yolo", { deny: ["EXEC:run:rm *"] });
    const denied = async (subject: string) => !(await policy.decide(request("exec", subject))).allowed;
    for (const chained of ["ls; rm -rf build", "ls && rm -rf build", "ls | rm x", "echo $(rm x)", "echo `rm x`", "ls\nrm -rf build"]) {
      expect({ chained, denied: await denied(chained) }).toEqual({ chained, denied: true });
    }
    expect(await denied("ls; echo rm")).toBe(false);
  });

  it("deny beats an allow rule, yolo, and an earlier 'always'", async () => {
    const policy = new PermissionPolicy("ask", { allow: ["EXEC:run:*"], deny: ["EXEC:run:curl*"] }, async () => "always");
    expect((await policy.decide(request("exec", "ls"))).allowed).toBe(true);
    expect((await policy.decide(request("exec", "curl example.com"))).allowed).toBe(false);
    policy.mode = "yolo";
    expect((await policy.decide(request("exec", "curl example.com"))).allowed).toBe(false);
  });

  it("matches protocol names in any case", async () => {
    const policy = new PermissionPolicy("yolo", { deny: ["web"] });
    expect((await policy.decide(request("network", "https://example.com", "WEB", "fetch"))).allowed).toBe(false);
  });
});

describe("always", () => {
  it("is remembered for that action only, not for the protocol's other actions", async () => {
    const asked: string[] = [];
    const policy = new PermissionPolicy("ask", {}, async (question) => (asked.push(question.action), "always"));
    await policy.decide(request("exec", "ls", "EXEC", "run"));
    await policy.decide(request("exec", "ls", "EXEC", "run"));
    await policy.decide(request("exec", "ls", "EXEC", "background"));
    expect(asked).toEqual(["run", "background"]);
  });

  it("gives way to plan mode when the person switches to it", async () => {
    const policy = new PermissionPolicy("ask", {}, async () => "always");
    await policy.decide(request("write", "a.txt", "FILE_OP", "write"));
    policy.mode = "plan";
    expect((await policy.decide(request("write", "a.txt", "FILE_OP", "write"))).allowed).toBe(false);
  });
});

describe("answering always", () => {
  it("for a command, allows exactly that command line: not the program with other arguments, never a chain", async () => {
    const asked: string[] = [];
    const policy = new PermissionPolicy("ask", {}, async (request) => {
      asked.push(`${request.subject} | ${request.alwaysCovers}`);
      return request.subject === "python3 notes/hello.py" ? "always" : "no";
    });
    const run = (subject: string) => policy.decide({ protocol: "EXEC", action: "run", permissionClass: "exec", description: `Running ${subject}`, subject });
    expect((await run("python3 notes/hello.py")).allowed).toBe(true);
    expect((await run("  python3 notes/hello.py ")).allowed).toBe(true);
    expect((await run("python3 --version; touch /outside/file")).allowed).toBe(false);
    expect((await run("python3 notes/hello.py; touch /outside/file")).allowed).toBe(false);
    expect((await run("python3 other.py")).allowed).toBe(false);
    expect(asked).toEqual([
      "python3 notes/hello.py | EXEC.run of exactly this command line",
      'python3 --version; touch /outside/file | "always" is not offered for chained commands: it allows this once',
      'python3 notes/hello.py; touch /outside/file | "always" is not offered for chained commands: it allows this once',
      "python3 other.py | EXEC.run of exactly this command line",
    ]);
  });

  it("for a chain, allows it this once only", async () => {
    let questions = 0;
    const policy = new PermissionPolicy("ask", {}, async () => (questions++, "always"));
    const run = () => policy.decide({ protocol: "EXEC", action: "run", permissionClass: "exec", description: "Running", subject: "make && make install" });
    await run();
    await run();
    expect(questions).toBe(2);
  });

  it("for a file change, allows changes to that file only", async () => {
    const asked: string[] = [];
    const policy = new PermissionPolicy("ask", {}, async (request) => (asked.push(`${request.subject} | ${request.alwaysCovers}`), "always"));
    const write = (subject: string) =>
      policy.decide({
        protocol: "FILE_OP",
        action: "write",
        permissionClass: "write",
        description: `Writing ${subject}`,
        subject,
        subjectIsPath: true,
        pathForms: [subject.replace(/^\.\//, "")],
      });
    await write("a.txt");
    await write("./a.txt");
    await write("b.txt");
    expect(asked).toEqual(["a.txt | FILE_OP.write of a.txt only", "b.txt | FILE_OP.write of b.txt only"]);
  });
});

describe("readsValues", () => {
  it("is true only for actions a rule with a value glob names", () => {
    const policy = new PermissionPolicy("ask", { allow: ["EXEC", "FILE_OP:*:src/*"], deny: ["GIT:push:*main*"] });
    expect(policy.readsValues("FILE_OP", "write")).toBe(true);
    expect(policy.readsValues("file_op", "read")).toBe(true);
    expect(policy.readsValues("GIT", "push")).toBe(true);
    expect(policy.readsValues("GIT", "commit")).toBe(false);
    expect(policy.readsValues("EXEC", "run")).toBe(false);
  });
});

describe("path subjects", () => {
  const fileRequest = (forms: string[], action = "write"): PermissionRequest => ({
    ...request("write", forms[0], "FILE_OP", action),
    subjectIsPath: true,
    pathForms: forms,
  });

  it("are refused by a deny rule when any of their forms matches, or names a denied folder", async () => {
    const policy = new PermissionPolicy("yolo", { deny: ["FILE_OP:write:secrets/*"] });
    const allowed = async (forms: string[]) => (await policy.decide(fileRequest(forms))).allowed;
    expect(await allowed(["secrets/key"])).toBe(false);
    expect(await allowed(["config/key", "secrets/key"])).toBe(false);
    expect(await allowed(["secrets"])).toBe(false);
    expect(await allowed(["src/secrets.ts"])).toBe(true);
  });

  it("are allowed by an allow rule only when every form matches", async () => {
    const policy = new PermissionPolicy("ask", { allow: ["FILE_OP:write:src/*"] });
    const allowed = async (forms: string[]) => (await policy.decide(fileRequest(forms))).allowed;
    expect(await allowed(["src/main.ts"])).toBe(true);
    expect(await allowed(["src/link/key", "secrets/key"])).toBe(false);
    expect(await allowed(["src/main.ts", "elsewhere/target.ts"])).toBe(false);
    expect(await allowed([])).toBe(false);
  });
});
