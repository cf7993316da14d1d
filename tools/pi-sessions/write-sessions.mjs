// Write real pi session files with the pinned pi coding agent (docs/pi-session-writer.md).
//
//   node tools/pi-sessions/write-sessions.mjs OUT_DIR
//
// Creates a scratch agent directory (models.json with one custom provider whose baseUrl is the
// scripted model on 127.0.0.1, settings.json with a small compaction budget) and a small
// scratch repository, then runs the installed `pi` CLI in print mode, offline, prompt after
// prompt in one session, then forks it and continues the fork. The session files pi wrote are
// copied into OUT_DIR (which must not exist) as main.jsonl and fork.jsonl. Nothing but
// 127.0.0.1 is contacted: pi runs with --offline, PI_OFFLINE=1 and PI_TELEMETRY=0, its only
// provider is the local one, and a preloaded guard (guard.mjs) refuses any other connection.

import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { startModelServer } from "./model-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const PI_CLI = join(HERE, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
const GUARD = join(HERE, "guard.mjs");

const REPOSITORY = {
  "README.md": [
    "# retry-service",
    "",
    "A small service that retries flaky network calls. Configuration lives in src/config.js;",
    "the retry loop in src/retry.js. See docs/design.md for the reasoning behind the defaults.",
    "",
  ].join("\n"),
  "src/config.js": "export const config = {\n  retryLimit: 3,\n  backoffMs: 200,\n};\n",
  "src/retry.js": Array.from(
    { length: 40 },
    (_, i) => `// step ${i}: wait, retry and record the attempt in the attempt log\n`,
  ).join("") + "export function retry(call, limit) {\n  return call();\n}\n",
  "test/retry.test.js": "import { retry } from '../src/retry.js';\n// retries until the limit\n",
  "docs/design.md": Array.from(
    { length: 120 },
    (_, i) => `Design note ${i}: retries back off exponentially from backoffMs; limit ${i % 7}.\n`,
  ).join(""),
};

const MAIN_PROMPTS = [
  "Survey the repository and tell me what it does.",
  "Investigate how the retry tests are organised.",
  "Change the retry limit to 5.",
  "Document the change in the docs folder.",
  "Review the retry module once more.",
  "Survey the repository again after the change.",
];
const FORK_PROMPTS = ["Review the retry module for error handling.", "Investigate the tests again."];

// Asynchronous on purpose: the scripted model answers from this process's event loop.
function run(args, env, cwd) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--import", GUARD, PI_CLI, ...args], {
      cwd,
      env,
      // In print mode pi reads piped stdin into the prompt: give it none.
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 120_000,
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (part) => {
      stderr += part;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      if (status === 0) resolvePromise();
      else {
        process.stderr.write(stderr);
        reject(new Error(`pi exited with ${status}`));
      }
    });
  });
}

async function main() {
  const out = process.argv[2];
  if (!out) throw new Error("usage: write-sessions.mjs OUT_DIR");
  const scratch = mkdtempSync(join(tmpdir(), "pi-session-writer-"));
  const server = await startModelServer();
  try {
    const agentDir = join(scratch, "agent");
    const sessionDir = join(scratch, "sessions");
    const repo = join(scratch, "repo");
    for (const dir of [agentDir, sessionDir, repo]) mkdirSync(dir, { recursive: true });
    for (const [path, text] of Object.entries(REPOSITORY)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    const models = {
      providers: {
        scripted: {
          baseUrl: `http://127.0.0.1:${server.port}/v1`,
          api: "openai-completions",
          apiKey: "scripted-local-key",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [
            {
              id: "scripted-model",
              name: "Scripted model on 127.0.0.1",
              reasoning: false,
              input: ["text"],
              contextWindow: 12000,
              maxTokens: 2000,
              cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
            },
          ],
        },
      },
    };
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
    const settings = {
      enableInstallTelemetry: false,
      compaction: { enabled: true, reserveTokens: 2000, keepRecentTokens: 2500 },
    };
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings, null, 2));
    const env = {
      PATH: process.env.PATH,
      HOME: scratch,
      PI_CODING_AGENT_DIR: agentDir,
      PI_OFFLINE: "1",
      PI_TELEMETRY: "0",
      PI_SKIP_VERSION_CHECK: "1",
    };
    const common = [
      "--offline",
      "--provider",
      "scripted",
      "--model",
      "scripted-model",
      "--tools",
      "read,ls,bash,edit,write",
      "--session-dir",
      sessionDir,
      "-p",
    ];
    const mainFile = join(sessionDir, "main.jsonl");
    for (const prompt of MAIN_PROMPTS) {
      await run([...common, "--session", mainFile, prompt], env, repo);
    }
    await run([...common, "--fork", mainFile, FORK_PROMPTS[0]], env, repo);
    const forkFile = readdirSync(sessionDir)
      .filter((name) => name !== "main.jsonl" && name.endsWith(".jsonl"))
      .map((name) => join(sessionDir, name))[0];
    for (const prompt of FORK_PROMPTS.slice(1)) {
      await run([...common, "--session", forkFile, prompt], env, repo);
    }
    mkdirSync(resolve(out));
    copyFileSync(mainFile, join(out, "main.jsonl"));
    copyFileSync(forkFile, join(out, "fork.jsonl"));
    process.stdout.write(`pi-sessions: requests=${server.state.requests} files=2\n`);
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`pi-sessions: ${error.message}\n`);
  process.exit(1);
});
