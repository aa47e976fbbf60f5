/**
 * Run by exec-sandbox.test.ts as a separate process: starts a sandboxed background job whose
 * shell runs `sleep <A>` and a setsid `sleep <B>`, prints "started", then dies by SIGKILL (no
 * exit hook runs). Arguments: workspace folder, A, B.
 */
import { createExecProtocol } from "../../protocols/exec.js";
import { Workspace } from "../../tools/workspace.js";
import { environmentFor, invoke } from "./invoke.js";

const [folder = ".", first = "1", second = "1"] = process.argv.slice(2);
const protocol = createExecProtocol({ startupWaitMs: 300 });
const environment = environmentFor(await Workspace.open(folder), { PATH: process.env.PATH });
const state = await protocol.setup!(environment);
await invoke(protocol, "background", { command: `setsid sleep ${second} & sleep ${first}` }, { environment, state });
process.stdout.write("started\n");
process.kill(process.pid, "SIGKILL");
