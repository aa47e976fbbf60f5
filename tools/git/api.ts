/**
 * The git tool layer as one module. The GIT protocol loads it on its first command, so that
 * isomorphic-git (large) is never loaded by clio runs that do not use git.
 */
export { default as git } from "isomorphic-git";
export { checkout, createBranch, deleteBranch, listBranches } from "./branches.js";
export { commitStaged, describeStaged, stagePaths } from "./changes.js";
export { diffRepository } from "./diff.js";
export { branchState, formatBranchHeader, readLog } from "./history.js";
export { mergeInto, reset, restorePaths, unstagePaths } from "./merge-reset.js";
export { previewCheckout, previewHardReset, previewMerge, previewRestore } from "./plan.js";
export { fetchRemote, pullRemote, pushRemote, resolveCredentials, scrubSecrets } from "./remote.js";
export { enclosingRepository, exists, openRepository, resolveAuthor } from "./repository.js";
export { computeStatus } from "./status.js";
