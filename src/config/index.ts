/** Configuration: load the merged config with the source of each value, and print it. */
export { loadConfig, type ConfigEntry, type ConfigSource, type LoadConfigOptions, type ResolvedConfig } from "./load.js";
export { formatConfigReport } from "./report.js";
export {
  apiStyles,
  configLayerSchema,
  defaultValues,
  environmentNames,
  isSecretKey,
  maskSecret,
  parsePermissionRule,
  permissionModes,
  type ApiStyle,
  type ClioConfig,
  type ConfigLayer,
  type PermissionMode,
  type PermissionRule,
} from "./schema.js";
export { parseJsonText, lineAndColumn, type JsonParseResult } from "./json-text.js";
export {
  PROGRAM_STARTING_KEYS,
  projectLoosenings,
  rememberTrustedFolder,
  reportProjectTrust,
  trustQuestion,
  type Loosening,
  type ProjectTrust,
} from "./trust.js";
