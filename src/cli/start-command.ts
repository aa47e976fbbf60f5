/**
 * `npm start`: the main job. With a model configured and a terminal, the chat; otherwise the
 * offline demo, which plays a recorded conversation through the real loop.
 */
import { ClioError } from "../../grammar/errors.js";
import { loadChatConfig, providerSettingsFrom } from "./chat-setup.js";

export async function startCommand(): Promise<number> {
  let configured = false;
  let reason = "";
  try {
    providerSettingsFrom(await loadChatConfig({}, process.env, process.cwd()), {}, process.env);
    configured = true;
  } catch (error) {
    if (!ClioError.isInstance(error)) throw error;
    reason = error.message;
  }
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (configured && interactive) {
    const { chatCommand } = await import("./chat-command.js");
    return chatCommand({});
  }
  process.stdout.write(
    configured
      ? "A model is configured, but this is not a terminal: showing the offline demo instead of the chat.\n\n"
      : `${reason}\nUntil then, here is the offline demo: a recorded conversation played through the real agent loop.\n\n`,
  );
  const { demoCommand } = await import("./demo-command.js");
  return demoCommand();
}
