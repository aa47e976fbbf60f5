/**
 * `clio login copilot`: GitHub's device flow, then the token is stored with 0600 permissions in
 * the user's clio folder and checked by one Copilot token exchange. CLIO_GITHUB_URL and
 * CLIO_COPILOT_TOKEN_URL point the flow elsewhere (tests use a local server).
 */
import { ClioError } from "../../grammar/errors.js";
import { copilotTokenFile, deviceLogin, storeCopilotToken } from "../providers/copilot/login.js";
import { CopilotTokenSource } from "../providers/copilot/token.js";
import { version } from "../version.js";

export async function loginCommand(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once("SIGINT", onInterrupt);
  try {
    const token = await deviceLogin({
      ...(env.CLIO_GITHUB_URL ? { githubUrl: env.CLIO_GITHUB_URL } : {}),
      signal: controller.signal,
      onCode: (code) =>
        process.stderr.write(`Open ${code.verificationUri} and enter the code ${code.userCode} (it expires in ${Math.round(code.expiresInSeconds / 60)} minutes). Waiting…\n`),
    });
    // One exchange first: a token without Copilot is refused here rather than at the first prompt.
    await new CopilotTokenSource({ githubToken: token, version, ...(env.CLIO_COPILOT_TOKEN_URL ? { exchangeUrl: env.CLIO_COPILOT_TOKEN_URL } : {}) }).token();
    const file = copilotTokenFile(env);
    await storeCopilotToken(file, token);
    process.stdout.write(
      `Signed in to GitHub Copilot; the token is in ${file} (readable only by you).\nUse it with: clio --provider copilot (or "provider": "copilot" in ~/.clio/config.json).\n`,
    );
    return 0;
  } catch (error) {
    if (!ClioError.isInstance(error)) throw error;
    process.stderr.write(`clio login: ${error.message}${error.hint ? `\n${error.hint}` : ""}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}
