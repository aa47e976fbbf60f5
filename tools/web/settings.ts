/**
 * WEB's settings, read from `config.WEB`. Every field is optional:
 *
 * | setting | default | meaning |
 * | --- | --- | --- |
 * | allowHosts | `[]` | hosts reachable even though they resolve to a blocked address; matched against the URL's host exactly as written (a name like `intranet.example`, an IPv4 address like `127.0.0.1`, or an IPv6 address like `::1`), case-insensitively. A name in the list is trusted whatever it resolves to; an address in the list allows only URLs that use that address literally (a name resolving to it is still blocked). |
 * | maxBytes | 5 MB | largest decoded response body for fetch and api |
 * | downloadMaxBytes | 50 MB | largest decoded file for download |
 * | timeoutMs | 30000 | total time for fetch and api, redirects and body included |
 * | downloadTimeoutMs | 300000 | total time for download |
 * | maxRedirects | 5 | redirects followed before giving up |
 * | userAgent | `clio/<version>` | the User-Agent header sent |
 */
import { isIP } from "node:net";
import { z } from "zod";
import { ToolError } from "../errors.js";

const MEGABYTE = 1024 * 1024;

export const webSettingsSchema = z
  .object({
    allowHosts: z
      .array(
        z.string().refine((entry) => /^[A-Za-z0-9.-]+$/.test(entry) || isIP(entry.replace(/^\[(.*)\]$/, "$1")) !== 0, {
          message: 'each entry is a host name or IP address without scheme or port, e.g. "127.0.0.1" or "intranet.example"',
        }),
      )
      .default([]),
    maxBytes: z
      .number()
      .int()
      .positive()
      .default(5 * MEGABYTE),
    downloadMaxBytes: z
      .number()
      .int()
      .positive()
      .default(50 * MEGABYTE),
    timeoutMs: z.number().int().positive().default(30_000),
    downloadTimeoutMs: z.number().int().positive().default(300_000),
    maxRedirects: z.number().int().min(0).max(20).default(5),
    userAgent: z.string().min(1).optional(),
  })
  .strict();

export type WebSettings = z.output<typeof webSettingsSchema>;

/** Reads and checks `config.WEB`; an unset section gives the defaults. */
export function readWebSettings(section: unknown): WebSettings {
  const parsed = webSettingsSchema.safeParse(section ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "WEB"}: ${issue.message}`).join("; ");
  throw new ToolError(
    "not_configured",
    `The WEB settings are invalid (${problems}).`,
    "Fix the WEB section of the config: allowHosts is a list of host names or addresses; maxBytes, downloadMaxBytes, timeoutMs, downloadTimeoutMs and maxRedirects are whole numbers.",
  );
}

/** "5 MB", "12.3 KB", "812 bytes". */
export function formatBytes(count: number): string {
  if (count >= MEGABYTE) return `${trimNumber(count / MEGABYTE)} MB`;
  if (count >= 1024) return `${trimNumber(count / 1024)} KB`;
  return `${count} bytes`;
}

/** "30 s", "250 ms". */
export function formatDuration(milliseconds: number): string {
  return milliseconds >= 1000 ? `${trimNumber(milliseconds / 1000)} s` : `${milliseconds} ms`;
}

function trimNumber(value: number): string {
  return value.toFixed(1).replace(/\.0$/, "");
}
