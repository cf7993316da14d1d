// Crafted payload pairs for diff.mjs; prints {name: [categories]} as JSON (used by test_diff.py).
import { diffPayloads } from "../../qualify/diff.mjs";
import { expectedCleared, locateTarget } from "../../qualify/reference.mjs";

const P = "PLACEHOLDER";
const anthropic = () => ({
  model: "m",
  system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "assistant", content: [
      { type: "thinking", thinking: "hmm", signature: "sig" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "tool_use", id: "t1", name: "read", input: { path: "a" } },
      { type: "tool_use", id: "t2", name: "read", input: { path: "b" } },
    ] },
    { role: "user", content: [
      { type: "tool_result", tool_use_id: "t1", content: "result one", is_error: false },
      { type: "tool_result", tool_use_id: "t2", content: "result two", is_error: false },
    ] },
    { role: "user", content: [{ type: "text", text: "next", cache_control: { type: "ephemeral" } }] },
  ],
});

function run(name, mutate, targets = ["result one"], api = "anthropic-messages", build = anthropic) {
  const original = build();
  const located = targets.map((text) => ({ ...locateTarget(api, original, text), originalText: text }));
  if (located.some((t) => t.error)) return [name, located.map((t) => t.error)];
  const expected = expectedCleared(original, located.map((t) => t.path), P);
  const actual = structuredClone(expected);
  mutate(actual);
  return [name, diffPayloads(expected, actual, located).map((d) => d.category)];
}

const m = (p) => p.messages;
const cases = [
  run("identical", () => {}),
  run("argument", (p) => { m(p)[0].content[2].input.path = "z"; }),
  run("thinking_text", (p) => { m(p)[0].content[0].thinking = "other"; }),
  run("signature_dropped", (p) => { delete m(p)[0].content[0].signature; }),
  run("redacted_changed", (p) => { m(p)[0].content[1].data = "x"; }),
  run("reasoning_block_dropped", (p) => { m(p)[0].content.splice(0, 1); }),
  run("tool_use_id", (p) => { m(p)[0].content[2].id = "t9"; }),
  run("pairing", (p) => { m(p)[1].content[1].tool_use_id = "t1"; }),
  run("results_swapped", (p) => { m(p)[1].content.reverse(); }),
  run("cache_control_moved", (p) => { delete m(p)[2].content[0].cache_control; m(p)[1].content[1].cache_control = { type: "ephemeral" }; }),
  run("untargeted_result", (p) => { m(p)[1].content[1].content = P; }),
  run("target_not_changed", (p) => { m(p)[1].content[0].content = "result one"; }),
  run("target_wrong_value", (p) => { m(p)[1].content[0].content = "something else"; }),
  run("other_leaf", (p) => { p.model = "n"; }),
  run("structure", (p) => { m(p).push({ role: "user", content: "extra" }); }),
  run("not_located", () => {}, ["absent text"]),
  run("ambiguous", () => {}, ["result one"], "anthropic-messages", () => {
    const p = anthropic(); p.messages[2].content[0].text = "result one"; return p; }),
  run("misplaced", () => {}, ["next"]),
  run("responses_ok", () => {}, ["out"], "openai-responses", () => ({ input: [
    { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
    { type: "function_call_output", call_id: "c1", output: "out" }] })),
  run("responses_pairing", (p) => { p.input[1].call_id = "c2"; }, ["out"], "openai-responses", () => ({ input: [
    { type: "function_call", call_id: "c1", name: "read", arguments: "{\"a\":1}" },
    { type: "function_call_output", call_id: "c1", output: "out" }] })),
  run("completions_arguments", (p) => { p.messages[0].tool_calls[0].function.arguments = "{}"; }, ["out"], "openai-completions", () => ({ messages: [
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{\"a\":1}" } }] },
    { role: "tool", tool_call_id: "c1", content: "out" }] })),
];
process.stdout.write(JSON.stringify(Object.fromEntries(cases)));
