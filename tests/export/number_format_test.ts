import assert from "node:assert/strict";
import { formatCount, formatFixed, formatGrouped, formatPyFloat } from "../../src/export/number_format.ts";

// Expected strings are Python 3 outputs of the same expressions.

Deno.test("formatFixed matches Python's .2f, rounding exact ties to even", () => {
  assert.equal(formatFixed(0.125), "0.12"); // f"{0.125:.2f}"
  assert.equal(formatFixed(0.375), "0.38");
  assert.equal(formatFixed(0.625), "0.62");
  assert.equal(formatFixed(2.5, 0), "2");
  assert.equal(formatFixed(3.5, 0), "4");
  // not ties in binary: 1.005 is 1.00499…, 2.675 is 2.67499…
  assert.equal(formatFixed(1.005), "1.00");
  assert.equal(formatFixed(2.675), "2.67");
  assert.equal(formatFixed(200), "200.00");
  assert.equal(formatFixed(-0), "-0.00");
  assert.equal(formatFixed(-0.001), "-0.00");
});

Deno.test("formatFixed prints every digit of huge values and Python's names for non-finite ones", () => {
  assert.equal(formatFixed(1e21), "1000000000000000000000.00");
  assert.equal(formatFixed(1e22), "10000000000000000000000.00");
  assert.equal(formatFixed(NaN), "nan");
  assert.equal(formatFixed(Infinity), "inf");
  assert.equal(formatFixed(-Infinity), "-inf");
});

Deno.test("formatGrouped matches Python's ,.2f", () => {
  assert.equal(formatGrouped(1234567.891), "1,234,567.89");
  assert.equal(formatGrouped(-1234.5), "-1,234.50");
  assert.equal(formatGrouped(999.999), "1,000.00");
  assert.equal(formatGrouped(12.3), "12.30");
});

Deno.test("formatCount groups integer thousands", () => {
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatCount(81), "81");
});

Deno.test("formatPyFloat matches Python's float repr", () => {
  assert.equal(formatPyFloat(5), "5.0");
  assert.equal(formatPyFloat(2.5), "2.5");
  assert.equal(formatPyFloat(0.0001), "0.0001");
  assert.equal(formatPyFloat(1e-5), "1e-05");
  assert.equal(formatPyFloat(1.5e-7), "1.5e-07");
  assert.equal(formatPyFloat(1e15), "1000000000000000.0");
  assert.equal(formatPyFloat(1e16), "1e+16");
  assert.equal(formatPyFloat(123456789.5), "123456789.5");
  assert.equal(formatPyFloat(1 / 3), "0.3333333333333333");
  assert.equal(formatPyFloat(-0.5), "-0.5");
});
