/** An action's parameter names as the manager's checks read them, worked out once per action. */
import type { ActionDefinition } from "../../protocols/contract/protocol.js";

/** An action's parameter names in declared order, the first of them, and those that are paths. */
export interface ParameterNames {
  all: readonly string[];
  first: string | undefined;
  paths: readonly string[];
}

/** Per action, at its first command (an action is replaced whole, never changed in place: MCP discovery makes new ones). */
const namesByAction = new WeakMap<ActionDefinition, ParameterNames>();

/** The `ParameterNames` of `action`. */
export function parameterNamesOf(action: ActionDefinition): ParameterNames {
  let names = namesByAction.get(action);
  if (names === undefined) {
    const all = Object.keys(action.parameters);
    names = { all, first: all[0], paths: all.filter((name) => action.parameters[name]!.path === true) };
    namesByAction.set(action, names);
  }
  return names;
}
