/** Sessions: the record of every conversation, one JSON file each, saved as things happen. */
export { SessionStore, makeSessionId, type SessionListing, type SessionStoreOptions, type SessionSummary, type UnreadableSession } from "./store.js";
export { Session, shortenOutput, type CommandInput, type EventInput, type MessageInput, type SessionWriter, type UsageInput } from "./session.js";
export { exportSession, exportFormats, isReplayable, printCommandLine, type ExportFormat } from "./export.js";
export {
  SESSION_FORMAT_VERSION,
  decodeSession,
  makeTitle,
  type CommandArgument,
  type CommandRecord,
  type MessageRecord,
  type MessageRole,
  type SessionData,
  type SessionMode,
  type SessionEvent,
  type TurnUsage,
  type UsageTotals,
} from "./format.js";
export { SessionLock, isProcessAlive, type LockOptions, type LockOwner } from "./lock.js";
