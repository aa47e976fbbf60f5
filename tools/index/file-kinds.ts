/**
 * What a file is for, told from its workspace-relative path: tests, fixtures and examples, or
 * generated and vendored code. One place for these rules, used by the overview (analyze) and
 * by ranking (which puts such files below the code they test, copy or show).
 */

/** Folders that hold tests. */
export const TEST_FOLDER = /(^|\/)(tests?|__tests__|specs?|testing)(\/|$)/;
/** File names that mark a test, per language's convention. */
export const TEST_FILE = /(\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|py)$|(^|\/)test_[^/]*\.py$|Tests?\.java$|_test\.(c|cc|cpp)$|_spec\.rb$)/;
const SUPPORT_FOLDER = /(^|\/)(fixtures?|testdata|examples?|samples?|demos?|benchmarks?|__mocks__|mocks?)(\/|$)/;
/** Build output, vendored and generated code. */
export const GENERATED_PATH = /(^|\/)(dist|build|out|target|vendor|third_party|node_modules|generated)\/|\.(min\.js|pb\.go|generated\.\w+)$|_pb2\.py$/;

export function isTestPath(filePath: string): boolean {
  return TEST_FILE.test(filePath) || TEST_FOLDER.test(filePath);
}

/**
 * Files that support the code rather than being it: tests, fixtures, examples, benchmarks,
 * generated and vendored copies.
 */
export function isSupportPath(filePath: string): boolean {
  return isTestPath(filePath) || SUPPORT_FOLDER.test(filePath) || GENERATED_PATH.test(filePath);
}
