import { test } from "node:test";
import assert from "node:assert/strict";
import { add, divide } from "../src/calc.js";

test("add sums two numbers", () => {
  assert.equal(add(2, 3), 5);
});

test("divide refuses a zero divisor", () => {
  assert.throws(() => divide(1, 0), /division by zero/);
});
