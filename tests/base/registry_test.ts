import assert from "node:assert/strict";
import { Registry, RegistryLookupError } from "../../src/base/registry.ts";

const fruit = new Registry("fruit", [
  { name: "apple", description: "red" },
  { name: "banana", description: "yellow" },
], { unsupported: { cherry: "it has a stone" } });

Deno.test("Registry gets entries by name and lists names and entries in declaration order", () => {
  assert.equal(fruit.get("banana").description, "yellow");
  assert.deepEqual(fruit.names(), ["apple", "banana"]);
  assert.deepEqual(fruit.entries().map((e) => e.description), ["red", "yellow"]);
  assert.equal(fruit.has("apple"), true);
  assert.equal(fruit.has("cherry"), false);
  assert.equal(fruit.find("kiwi"), undefined);
});

Deno.test("Registry.get names the choices and the closest name for an unknown one", () => {
  assert.throws(() => fruit.get("aple"), (e: unknown) => {
    assert.ok(e instanceof RegistryLookupError && e instanceof RangeError);
    assert.equal(e.message, "unknown fruit 'aple'; did you mean 'apple'? use one of: apple, banana");
    assert.equal(e.kind, "fruit");
    assert.equal(e.requested, "aple");
    return true;
  });
  assert.equal(fruit.describeUnknown("zzzzzz"), "unknown fruit 'zzzzzz'; use one of: apple, banana");
});

Deno.test("Registry.get says why a recognised name is not supported", () => {
  assert.throws(
    () => fruit.get("cherry"),
    /^RegistryLookupError: fruit 'cherry' is not supported yet: it has a stone$/,
  );
  assert.deepEqual(fruit.unsupported(), { cherry: "it has a stone" });
});

Deno.test("Registry refuses a duplicate name and a name both registered and unsupported", () => {
  assert.throws(() => new Registry("x", [{ name: "a", description: "" }, { name: "a", description: "" }]), /twice/);
  assert.throws(
    () => new Registry("x", [{ name: "a", description: "" }], { unsupported: { a: "no" } }),
    /both registered and listed as unsupported/,
  );
});
