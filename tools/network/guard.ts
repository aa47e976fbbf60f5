/**
 * Where WEB and GIT may go: http and https URLs whose host resolves only to allowed addresses
 * (see addresses.ts), or whose host is listed in the protocol's `allowHosts`. The check runs after DNS
 * resolution and again on every redirect; the transport then connects to exactly the
 * address checked here, so a DNS answer that changes between check and connect
 * (rebinding) cannot reach a blocked address.
 */
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import { ToolError } from "../errors.js";
import { classifyAddress } from "./addresses.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Turns a host name into its addresses; the seam tests replace. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`dns.lookup` with `all: true`, so /etc/hosts counts too). */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

/** A checked destination: the URL and the one address the connection is pinned to. */
export interface Destination extends ResolvedAddress {
  url: URL;
}

/** Parses a URL a model wrote, refusing anything but http and https. */
export function parseWebUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ToolError("invalid_argument", `${JSON.stringify(text)} is not an absolute URL.`, 'Write the full address with its scheme, e.g. url="https://example.com/docs".');
  }
  return checkScheme(url);
}

/** Refuses non-HTTP(S) schemes and URLs carrying credentials. */
export function checkScheme(url: URL): URL {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(
      "unsupported_scheme",
      `${url.protocol.replace(/:$/, "")}: URLs are not fetched; WEB only speaks http and https.`,
      url.protocol === "file:" ? "Read local files with FILE_OP.read instead." : "Use an http:// or https:// URL.",
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new ToolError(
      "invalid_argument",
      "URLs with a user name or password in them are not sent.",
      'Pass credentials as a header with WEB.api, e.g. headers={"Authorization":"Basic ..."}.',
    );
  }
  return url;
}

/** The URL's host as allowHosts entries are written: lower case, no IPv6 brackets, no trailing dot. */
export function hostKey(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, "");
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/**
 * Resolves the URL's host and checks every address. Throws `blocked_address` naming the
 * address and what it is, or `network_error` when the name does not resolve.
 */
export async function checkDestination(url: URL, resolve: Resolver, allowHosts: readonly string[], protocol = "WEB"): Promise<Destination> {
  checkScheme(url);
  const host = hostKey(url.hostname);
  const literalFamily = isIP(host);
  const addresses: ResolvedAddress[] = literalFamily !== 0 ? [{ address: host, family: literalFamily === 6 ? 6 : 4 }] : await resolveName(host, resolve);
  const first = addresses[0];
  if (first === undefined) {
    throw new ToolError("network_error", `${host} has no addresses.`, "Check the host name in the URL.");
  }
  const allowed = allowHosts.some((entry) => hostKey(entry) === host);
  if (!allowed) {
    for (const candidate of addresses) {
      const verdict = classifyAddress(candidate.address);
      if (verdict.blocked) {
        const resolved = literalFamily !== 0 ? "" : ` resolves to ${candidate.address}, which`;
        throw new ToolError(
          "blocked_address",
          `${url.origin} was not contacted: ${host}${resolved} is ${verdict.reason}. ${protocol} does not reach this machine, local networks or metadata services.`,
          `Use a public address. If this host is meant to be reachable, add it to the ${protocol}.allowHosts setting in your own config (~/.clio/config.json).`,
        );
      }
    }
  }
  return { url, address: first.address, family: first.family };
}

async function resolveName(host: string, resolve: Resolver): Promise<ResolvedAddress[]> {
  try {
    return await resolve(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolError(
      "network_error",
      `${host} could not be resolved${code === undefined ? "" : ` (${code})`}.`,
      "Check the spelling of the host name; the network may also be unavailable.",
    );
  }
}
