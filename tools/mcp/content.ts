/**
 * An MCP tool result as the text a model reads: text content as is, everything else described
 * (an image's type and size, a resource link's name and address), structured content as JSON
 * when there is no text.
 */

interface ContentItem {
  type?: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** Bytes of a base64 payload, without decoding it. */
function base64Bytes(data: string | undefined): number {
  if (data === undefined) return 0;
  const clean = data.replace(/\s+/g, "");
  return Math.floor((clean.length * 3) / 4) - (clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0);
}

const sizeOf = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`);

/** One content item as text. */
export function describeContent(item: unknown): string {
  const content = (typeof item === "object" && item !== null ? item : {}) as ContentItem;
  switch (content.type) {
    case "text":
      return content.text ?? "";
    case "image":
    case "audio":
      return `[${content.type}: ${content.mimeType ?? "unknown type"}, ${sizeOf(base64Bytes(content.data))}]`;
    case "resource_link": {
      const label = content.title ?? content.name ?? content.uri ?? "";
      const details = [content.mimeType, content.description].filter((part) => part !== undefined && part !== "").join("; ");
      return `[resource link: ${label} ${content.uri ?? ""}${details === "" ? "" : ` (${details})`}]`;
    }
    case "resource": {
      const resource = content.resource ?? {};
      if (typeof resource.text === "string") return `[resource ${resource.uri ?? ""}${resource.mimeType ? ` (${resource.mimeType})` : ""}]\n${resource.text}`;
      return `[resource ${resource.uri ?? ""}: ${resource.mimeType ?? "binary"}, ${sizeOf(base64Bytes(resource.blob))}]`;
    }
    default:
      return `[${String(content.type ?? "unknown")} content]`;
  }
}

/** The whole result as text: its items in order, or the structured content, or a note that it was empty. */
export function resultText(result: { content?: unknown[]; structuredContent?: unknown }): string {
  const parts = (result.content ?? []).map(describeContent).filter((part) => part !== "");
  if (parts.length > 0) return parts.join("\n");
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return "(the tool returned nothing)";
}
