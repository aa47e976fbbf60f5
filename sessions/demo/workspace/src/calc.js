/** Adds two numbers. */
export function add(left, right) {
  return left + right;
}

/** Divides left by right. */
export function divide(left, right) {
  return left / right;
}
