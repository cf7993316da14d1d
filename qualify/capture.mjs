// Capture driver: runs the installed pi-ai payload builders on every fixture, original and
// cleared, and prints one JSON summary on stdout (R-Q-1). One node process does all the work.
//
// Guarantees:
// - The payloads come from pi-ai itself (`streamSimple` with real catalog models), captured in
//   pi-ai's `onPayload` hook; nothing here re-implements a builder.
// - No network: `onPayload` throws right after capturing, which ends the request before the
//   SDK is called. Belt and braces: every model's base URL and every proxy variable point at
//   127.0.0.1:9 (discard port, closed), and global fetch / WebSocket are replaced by functions
//   that count the attempt and refuse. Any attempt fails the run (NETWORK_ATTEMPTED).
// - Keys are dummies; Codex gets an unsigned JWT-shaped token (pi-ai only decodes it).
// - Exit 0 with the summary, or exit 3 with one fixed code on stderr; never payload text.
//
// Usage: node capture.mjs --placeholder <file> [--fault argument|signature|ordering|untargeted|skip]

import { readFileSync } from "node:fs";
import { CATEGORIES, diffPayloads } from "./diff.mjs";
import { applyFault, buildFixtures, clearHistory, FAULT_MODES, targetText } from "./fixtures.mjs";
import { expectedCleared, locateTarget } from "./reference.mjs";

const PI_AI_PACKAGE = "@mariozechner/pi-ai";
const DEAD_END = "http://127.0.0.1:9";
const CAPTURED = "QUALIFY_PAYLOAD_CAPTURED";
const network = { attempts: 0 };

for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]) {
  process.env[name] = DEAD_END;
}
delete process.env.NO_PROXY;
delete process.env.no_proxy;
globalThis.fetch = async () => {
  network.attempts += 1;
  throw new Error("network disabled");
};
globalThis.WebSocket = class {
  constructor() {
    network.attempts += 1;
    throw new Error("network disabled");
  }
};

class HarnessError extends Error {
  constructor(code) {
    super(code);
    this.code = code;
  }
}

function base64Json(value) {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Unsigned JWT-shaped dummy: pi-ai reads chatgpt_account_id from this claim, nothing else. */
const CODEX_DUMMY_TOKEN = [
  base64Json({ alg: "none", typ: "JWT" }),
  base64Json({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_qualify_dummy" } }),
  "unsigned",
].join(".");

// Real catalog models per API. Variants cover thinking modes, cache retention, OAuth-style
// Anthropic requests and the openai-completions compat families (see docs/qualification.md).
const VARIANTS = {
  "anthropic-messages": [
    { provider: "anthropic", id: "claude-sonnet-4-5", key: "sk-ant-api03-qualify-dummy", options: { reasoning: "medium" } },
    { provider: "anthropic", id: "claude-opus-4-6", key: "sk-ant-api03-qualify-dummy", options: { reasoning: "high", cacheRetention: "long" } },
    { provider: "anthropic", id: "claude-sonnet-4-5", key: "sk-ant-oat01-qualify-dummy", options: { reasoning: "low" } },
  ],
  "openai-responses": [
    { provider: "openai", id: "gpt-5.1", key: "sk-qualify-dummy", options: { reasoning: "medium" } },
    { provider: "openai", id: "gpt-4.1", key: "sk-qualify-dummy", options: { cacheRetention: "long" } },
  ],
  "openai-codex-responses": [
    { provider: "openai-codex", id: "gpt-5.2-codex", key: CODEX_DUMMY_TOKEN, options: { reasoning: "high" } },
    { provider: "openai-codex", id: "gpt-5.1", key: CODEX_DUMMY_TOKEN, options: { reasoning: "low" } },
  ],
  "openai-completions": [
    { provider: "deepseek", id: "deepseek-v4-pro", key: "qualify-dummy", options: { reasoning: "medium" } },
    { provider: "openrouter", id: "anthropic/claude-sonnet-4.5", key: "qualify-dummy", options: { reasoning: "medium" } },
    { provider: "groq", id: "openai/gpt-oss-120b", key: "qualify-dummy", options: { reasoning: "low" } },
  ],
};

function parseArgs(argv) {
  const args = { placeholder: undefined, fault: undefined };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === "--placeholder") args.placeholder = argv[i + 1];
    else if (argv[i] === "--fault" && FAULT_MODES.includes(argv[i + 1])) args.fault = argv[i + 1];
    else throw new HarnessError("USAGE");
  }
  if (!args.placeholder) throw new HarnessError("USAGE");
  return args;
}

/** The placeholder text: the file's UTF-8 content without one trailing newline. */
function readPlaceholder(path) {
  const raw = readFileSync(path, "utf8");
  const text = raw.endsWith("\n") ? raw.slice(0, -1) : raw;
  if (text.length === 0) throw new HarnessError("PLACEHOLDER_EMPTY");
  return text;
}

function installedPiAi() {
  const entry = new URL(import.meta.resolve(PI_AI_PACKAGE));
  const manifest = JSON.parse(readFileSync(new URL("../package.json", entry), "utf8"));
  if (manifest.name !== PI_AI_PACKAGE) throw new HarnessError("PI_AI_MANIFEST");
  return { package: manifest.name, version: manifest.version };
}

/** One payload from the real builder, captured in onPayload; the request never starts. */
async function capture(piAi, model, variant, context) {
  let payload;
  const stream = piAi.streamSimple(model, context, {
    ...variant.options,
    apiKey: variant.key,
    sessionId: "qualify-session",
    transport: "sse",
    maxRetries: 0,
    onPayload: (built) => {
      payload = JSON.parse(JSON.stringify(built));
      throw new Error(CAPTURED);
    },
  });
  const final = await stream.result();
  if (payload === undefined || final.errorMessage !== CAPTURED) throw new HarnessError("CAPTURE_FAILED");
  return payload;
}

async function runCase(piAi, model, variant, fixture, placeholder, fault) {
  const original = await capture(piAi, model, variant, fixture.context);
  let cleared = clearHistory(fixture.context, fixture.targets, placeholder);
  if (fault) cleared = applyFault(cleared, fixture, fault, fixture.context);
  const actual = await capture(piAi, model, variant, cleared);
  const differences = [];
  const targets = [];
  for (const callId of fixture.targets) {
    const originalText = targetText(fixture.context, callId);
    const located = locateTarget(model.api, original, originalText);
    if (located.error) differences.push({ category: "TARGET_NOT_LOCATED", path: [] });
    else targets.push({ path: located.path, originalText });
  }
  const expected = expectedCleared(original, targets.map((t) => t.path), placeholder);
  differences.push(...diffPayloads(expected, actual, targets));
  return { targetedLeaves: targets.length, differences };
}

async function main() {
  // pi-ai 0.73.1 declares node >=20; refuse older runtimes with a code, not a stack trace.
  if (Number(process.versions.node.split(".")[0]) < 20) throw new HarnessError("NODE_TOO_OLD");
  const args = parseArgs(process.argv.slice(2));
  const placeholder = readPlaceholder(args.placeholder);
  const piAi = await import(PI_AI_PACKAGE);
  const apis = {};
  for (const [api, variants] of Object.entries(VARIANTS)) {
    const byCategory = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
    const summary = { cases: 0, targetedLeaves: 0, unintendedDifferences: 0, byCategory };
    for (const variant of variants) {
      const catalog = piAi.getModel(variant.provider, variant.id);
      if (!catalog || catalog.api !== api) throw new HarnessError("MODEL_MISSING");
      const model = { ...catalog, baseUrl: DEAD_END };
      for (const fixture of buildFixtures(model)) {
        const outcome = await runCase(piAi, model, variant, fixture, placeholder, args.fault);
        summary.cases += 1;
        summary.targetedLeaves += outcome.targetedLeaves;
        for (const { category } of outcome.differences) {
          summary.unintendedDifferences += 1;
          byCategory[category] += 1;
        }
      }
    }
    apis[api] = summary;
  }
  if (network.attempts !== 0) throw new HarnessError("NETWORK_ATTEMPTED");
  const out = { harness: 1, piAi: installedPiAi(), fault: args.fault ?? null, apis };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error) => {
  // Fixed codes only: a payload or message text must never reach the terminal.
  process.stderr.write(`${error instanceof HarnessError ? error.code : "HARNESS_FAULT"}\n`);
  process.exitCode = 3;
});
