// Fixture builder for the payload qualification (R-Q-2).
//
// Guarantees: every fixture is a pi-ai `Context` written in the *native* shapes of the target
// model (its thinking signatures, tool-call ids, text signatures), so the real builders replay
// reasoning and signatures instead of downgrading them. Each fixture names its targets: earlier,
// successful, single plain-text tool results (seed: "only ... single plain-text results ...
// qualify"). `clearHistory` replaces exactly those results' text with the placeholder and
// changes nothing else. `applyFault` deliberately breaks a cleared history in one named way so
// the tests can prove the diff catches it for every API (negative tests, issue 5).
//
// Every result text is unique across the fixture, so the reference can locate its payload leaf
// by value (see reference.mjs). No text here is real user data.

const TOOLS = [
  {
    name: "read",
    description: "Read a file from the workspace.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, offset: { type: "integer" } },
      required: ["path"],
    },
  },
  {
    name: "grep",
    description: "Search files for a pattern.",
    parameters: {
      type: "object",
      properties: { pattern: { type: "string" }, glob: { type: "string" } },
      required: ["pattern"],
    },
  },
  {
    name: "screenshot",
    description: "Capture the rendered page.",
    parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
];

const SYSTEM_PROMPT = "You are a coding agent working in a fictional repository.";
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const ZERO_USAGE = {
  input: 120,
  output: 40,
  cacheRead: 800,
  cacheWrite: 0,
  totalTokens: 960,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** The two foreign sources used for cross-model history. */
const FOREIGN_ANTHROPIC = {
  api: "anthropic-messages",
  provider: "anthropic",
  id: "claude-haiku-4-5",
};
const FOREIGN_RESPONSES = { api: "openai-responses", provider: "openai", id: "gpt-4.1-mini" };

function isResponsesApi(api) {
  return api === "openai-responses" || api === "openai-codex-responses";
}

/** A thinking block with the signature shape the source API records. */
function thinking(source, label, text) {
  if (source.api === "anthropic-messages") {
    return { type: "thinking", thinking: text, thinkingSignature: `EqQBCkgIBhABGAIiQ${label}Zx9==` };
  }
  if (isResponsesApi(source.api)) {
    const item = {
      type: "reasoning",
      id: `rs_${label}`,
      summary: [{ type: "summary_text", text }],
      encrypted_content: `gAAAAB${label}enc`,
    };
    return { type: "thinking", thinking: text, thinkingSignature: JSON.stringify(item) };
  }
  // openai-completions records the provider's reasoning field name as the signature.
  return { type: "thinking", thinking: text, thinkingSignature: "reasoning_content" };
}

/** Redacted thinking: opaque payload in the signature, empty text (pi-ai's representation). */
function redactedThinking(source, label) {
  if (isResponsesApi(source.api)) {
    const item = { type: "reasoning", id: `rs_${label}`, summary: [], encrypted_content: `gAAAAR${label}` };
    return { type: "thinking", thinking: "", thinkingSignature: JSON.stringify(item), redacted: true };
  }
  return { type: "thinking", thinking: "", thinkingSignature: `ErUBCkYIRedacted${label}==`, redacted: true };
}

function text(source, label, body) {
  if (isResponsesApi(source.api)) {
    return { type: "text", text: body, textSignature: JSON.stringify({ v: 1, id: `msg_${label}` }) };
  }
  return { type: "text", text: body };
}

function toolCallId(source, label) {
  if (source.api === "anthropic-messages") return `toolu_01${label}`;
  if (isResponsesApi(source.api)) return `call_${label}|fc_${label}`;
  return `call_${label}`;
}

function toolCall(source, label, name, args) {
  const call = { type: "toolCall", id: toolCallId(source, label), name, arguments: args };
  if (source.api === "openai-completions") {
    // OpenRouter-style reasoning detail carried on the call (replayed as reasoning_details).
    call.thoughtSignature = JSON.stringify({ type: "reasoning.encrypted", id: `rd_${label}`, data: `enc${label}` });
  }
  return call;
}

function assistant(source, content, timestamp) {
  const hasCalls = content.some((block) => block.type === "toolCall");
  return {
    role: "assistant",
    content,
    api: source.api,
    provider: source.provider,
    model: source.id,
    usage: ZERO_USAGE,
    stopReason: hasCalls ? "toolUse" : "stop",
    timestamp,
  };
}

function result(call, content, timestamp, isError = false) {
  return { role: "toolResult", toolCallId: call.id, toolName: call.name, content, isError, timestamp };
}

function user(body, timestamp) {
  return { role: "user", content: body, timestamp };
}

const plain = (body) => [{ type: "text", text: body }];

/** Several prompt turns, one call each, then a final input; the two earlier results are targets. */
function severalTurns(self) {
  const c1 = toolCall(self, "st1", "read", { path: "src/app.ts" });
  const c2 = toolCall(self, "st2", "grep", { pattern: "TODO", glob: "**/*.ts" });
  const c3 = toolCall(self, "st3", "read", { path: "README.md", offset: 10 });
  const messages = [
    user("Summarize src/app.ts.", 1000),
    assistant(self, [thinking(self, "st1", "Need to read the file."), text(self, "st1", "Reading it."), c1], 1100),
    result(c1, plain("export const app = 1; // several-turns result one"), 1200),
    assistant(self, [text(self, "st1b", "It exports one constant.")], 1300),
    user("Now find TODOs.", 2000),
    assistant(self, [thinking(self, "st2", "Search with grep."), c2], 2100),
    result(c2, plain("src/a.ts:3: TODO tidy\nsrc/b.ts:9: TODO split"), 2200),
    assistant(self, [text(self, "st2b", "Two TODOs.")], 2300),
    user("And the README?", 3000),
    assistant(self, [thinking(self, "st3", "Read the README."), c3], 3100),
    result(c3, plain("# Fictional project (latest result, never cleared)"), 3200),
    assistant(self, [text(self, "st3b", "It describes the project.")], 3300),
    user("Thanks. What next?", 4000),
  ];
  return { name: "several_turns", messages, targets: [c1.id, c2.id], latest: c3.id };
}

/** One turn with several results: text (target), image, error, mixed, then JSON + unicode. */
function parallelResults(self) {
  const a = toolCall(self, "pr1", "read", { path: "data/config.json" });
  const b = toolCall(self, "pr2", "screenshot", { url: "http://example.invalid/" });
  const c = toolCall(self, "pr3", "read", { path: "missing.txt" });
  const d = toolCall(self, "pr4", "grep", { pattern: "ünïcödé", glob: "docs/**" });
  const e = toolCall(self, "pr5", "read", { path: "docs/i18n.md" });
  const f = toolCall(self, "pr6", "screenshot", { url: "http://example.invalid/page" });
  const jsonText = JSON.stringify({ name: "demo", nested: { list: [1, 2.5, null, true], quote: 'say "hi"' } });
  const messages = [
    user("Inspect the config and the page.", 1000),
    assistant(self, [thinking(self, "pr1", "Run these in parallel."), a, b, c], 1100),
    result(a, plain(jsonText), 1200),
    result(b, [{ type: "image", data: PNG_1X1, mimeType: "image/png" }], 1210),
    result(c, plain("ENOENT: no such file (error result, kept)"), 1220, true),
    assistant(self, [thinking(self, "pr2", "Check docs too."), d, e, f], 1300),
    result(d, plain("docs/i18n.md:1: Größe — 日本語 — مرحبا — 🙂🚀 — e\u0301 — tab\there"), 1400),
    result(e, plain("line one\nline two with \\ backslash and \"quotes\" and {\"k\": [1]}"), 1410),
    result(f, [{ type: "text", text: "page caption (mixed result, kept)" }, { type: "image", data: PNG_1X1, mimeType: "image/png" }], 1420),
    assistant(self, [text(self, "pr3", "Config and docs inspected.")], 1500),
    user("Fine. Continue.", 2000),
  ];
  return { name: "parallel_results", messages, targets: [a.id, d.id, e.id], latest: f.id };
}

/** Redacted thinking from the same model plus earlier turns from two other providers/models. */
function crossModel(self) {
  const anth = { ...FOREIGN_ANTHROPIC };
  const resp = { ...FOREIGN_RESPONSES };
  const f1 = toolCall(anth, "cm1", "read", { path: "lib/one.py" });
  const f2 = toolCall(resp, "cm2", "grep", { pattern: "def \\w+", glob: "lib/*.py" });
  const s1 = toolCall(self, "cm3", "read", { path: "lib/two.py" });
  const s2 = toolCall(self, "cm4", "read", { path: "lib/three.py" });
  const messages = [
    user("Review lib/.", 1000),
    assistant(anth, [thinking(anth, "cm1", "Foreign thinking one."), text(anth, "cm1", "Reading one."), f1], 1100),
    result(f1, plain("def one():\n    return 1  # cross-model result A"), 1200),
    assistant(resp, [thinking(resp, "cm2", "Foreign thinking two."), f2], 1300),
    result(f2, plain("lib/one.py:1:def one\nlib/two.py:1:def two  # cross-model result B"), 1400),
    user("Continue with the current model.", 2000),
    assistant(self, [redactedThinking(self, "cm3"), thinking(self, "cm3b", "Same-model thinking."), s1], 2100),
    result(s1, plain("def two():\n    return 2  # same-model result C"), 2200),
    assistant(self, [redactedThinking(self, "cm4"), s2], 2300),
    result(s2, plain("def three():\n    return 3  # latest result D"), 2400),
    assistant(self, [text(self, "cm4b", "Reviewed.")], 2500),
    user("Any issues?", 3000),
  ];
  return { name: "cross_model", messages, targets: [f1.id, f2.id, s1.id], latest: s2.id };
}

/** A turn whose results include a multi-block text result and an empty result (both kept). */
function mixedShapes(self) {
  const a = toolCall(self, "ms1", "read", { path: "a.txt" });
  const b = toolCall(self, "ms2", "read", { path: "b.txt" });
  const c = toolCall(self, "ms3", "read", { path: "c.txt" });
  const d = toolCall(self, "ms4", "grep", { pattern: "x", glob: "*" });
  const messages = [
    user([{ type: "text", text: "Look at these files." }, { type: "image", data: PNG_1X1, mimeType: "image/png" }], 1000),
    assistant(self, [thinking(self, "ms1", "Read all three."), a, b, c], 1100),
    result(a, plain("alpha contents (target in mixed-shapes)"), 1200),
    result(b, [{ type: "text", text: "beta part one" }, { type: "text", text: "beta part two" }], 1210),
    result(c, plain(""), 1220),
    assistant(self, [thinking(self, "ms2", "Now grep."), d], 1300),
    result(d, plain("a.txt:1:x (latest mixed-shapes result)"), 1400),
    user("Done?", 2000),
  ];
  return { name: "mixed_shapes", messages, targets: [a.id], latest: d.id };
}

/** A request in the middle of a tool loop: the history ends with the latest tool results. */
function midLoop(self) {
  const a = toolCall(self, "ml1", "grep", { pattern: "class ", glob: "src/**" });
  const b = toolCall(self, "ml2", "read", { path: "src/model.ts" });
  const c = toolCall(self, "ml3", "read", { path: "src/view.ts" });
  const d = toolCall(self, "ml4", "read", { path: "src/store.ts" });
  const messages = [
    user("Refactor the model classes.", 1000),
    assistant(self, [thinking(self, "ml1", "Find the classes first."), a], 1100),
    result(a, plain("src/model.ts:4:class Model\nsrc/view.ts:2:class View"), 1200),
    assistant(self, [thinking(self, "ml2", "Read both files."), text(self, "ml2", "Reading."), b, c], 1300),
    result(b, plain("export class Model { id = 0 } // mid-loop target"), 1400),
    result(c, plain("export class View {} // mid-loop latest one"), 1410),
    assistant(self, [thinking(self, "ml3", "And the store."), d], 1500),
    result(d, plain("export const store = new Map(); // mid-loop latest two"), 1600),
  ];
  return { name: "mid_loop", messages, targets: [a.id, b.id], latest: d.id };
}

export const FIXTURE_BUILDERS = [severalTurns, parallelResults, crossModel, mixedShapes, midLoop];

/** All fixtures for one target model, with the tools and system prompt every request carries. */
export function buildFixtures(model) {
  const self = { api: model.api, provider: model.provider, id: model.id };
  return FIXTURE_BUILDERS.map((build) => {
    const fixture = build(self);
    return { ...fixture, context: { systemPrompt: SYSTEM_PROMPT, messages: fixture.messages, tools: TOOLS } };
  });
}

/** Text of the single plain-text result answering `callId` (the targets are exactly that). */
export function targetText(context, callId) {
  const found = context.messages.find((m) => m.role === "toolResult" && m.toolCallId === callId);
  if (!found || found.isError || found.content.length !== 1 || found.content[0].type !== "text") {
    throw new Error("fixture target is not a single plain-text result");
  }
  return found.content[0].text;
}

/** The cleared history: each targeted result's content becomes the placeholder, nothing else. */
export function clearHistory(context, targets, placeholder) {
  const cleared = structuredClone(context);
  for (const message of cleared.messages) {
    if (message.role === "toolResult" && targets.includes(message.toolCallId)) {
      message.content = [{ type: "text", text: placeholder }];
    }
  }
  return cleared;
}

export const FAULT_MODES = ["argument", "signature", "ordering", "untargeted", "skip"];

/** Break a cleared history in one named way (used only by the negative tests). */
export function applyFault(cleared, fixture, mode, original) {
  const broken = structuredClone(cleared);
  const messages = broken.messages;
  if (mode === "argument") {
    const call = messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).find((b) => b.type === "toolCall");
    call.arguments = { ...call.arguments, path: `${call.arguments.path ?? ""}.changed` };
  } else if (mode === "signature") {
    for (const m of messages) {
      if (m.role !== "assistant") continue;
      for (const block of m.content) {
        delete block.thinkingSignature;
        delete block.thoughtSignature;
      }
    }
  } else if (mode === "ordering") {
    const i = messages.findIndex((m, k) => m.role === "toolResult" && messages[k + 1]?.role === "toolResult");
    if (i >= 0) [messages[i], messages[i + 1]] = [messages[i + 1], messages[i]];
  } else if (mode === "untargeted") {
    const latest = messages.find((m) => m.role === "toolResult" && m.toolCallId === fixture.latest);
    latest.content = [{ type: "text", text: "cleared by mistake" }];
  } else if (mode === "skip") {
    return structuredClone(original);
  } else {
    throw new Error("unknown fault mode");
  }
  return broken;
}
