// A scripted model on 127.0.0.1 that speaks the OpenAI chat-completions streaming protocol,
// for pi's `openai-completions` API (docs/pi-session-writer.md). It is not a language model: each
// reply is chosen from a fixed script by the conversation it is sent, so that pi's own code
// (agent loop, tools, session manager, compaction) writes the session file.
//
// - A request whose last user message is pi's compaction prompt gets a fixed summary.
// - Otherwise the latest user prompt selects a plan (PLANS below, by its first word); the
//   number of assistant messages since that prompt is the step: a step is one or more tool
//   calls, and after the last step the reply is a short text that ends the run.
// - Usage is reported in every stream (stream_options.include_usage): prompt tokens are the
//   request's characters / 4 plus a fixed system overhead, the part of it already sent in the
//   previous request counts as cached, so pi's compaction trigger sees a growing context.
// Only 127.0.0.1 is listened on; the server makes no connection of its own.

import http from "node:http";

const SYSTEM_OVERHEAD = 400;

// Plans by the prompt's first word. Paths are relative to the scratch repository the driver
// creates (write-sessions.mjs); `edit` texts match its files exactly.
export const PLANS = {
  Survey: [
    [{ name: "ls", arguments: { path: "." } }],
    [{ name: "read", arguments: { path: "README.md" } }],
    [
      { name: "read", arguments: { path: "src/retry.js" } },
      { name: "read", arguments: { path: "src/config.js" } },
    ],
  ],
  Investigate: [
    [{ name: "bash", arguments: { command: "ls -la src test" } }],
    [{ name: "read", arguments: { path: "test/retry.test.js" } }],
    [{ name: "read", arguments: { path: "docs/design.md" } }],
  ],
  Change: [
    [{ name: "read", arguments: { path: "src/config.js" } }],
    [
      {
        name: "edit",
        arguments: {
          path: "src/config.js",
          edits: [{ oldText: "retryLimit: 3", newText: "retryLimit: 5" }],
        },
      },
    ],
    [{ name: "bash", arguments: { command: "grep -n retryLimit src/config.js" } }],
  ],
  Document: [
    [{ name: "read", arguments: { path: "docs/design.md" } }],
    [
      {
        name: "write",
        arguments: { path: "docs/retry-notes.md", content: "Retry limit raised to 5.\n" },
      },
    ],
  ],
  Review: [
    [{ name: "read", arguments: { path: "src/retry.js" } }],
    [{ name: "read", arguments: { path: "missing-file.js" } }],
    [{ name: "read", arguments: { path: "docs/design.md" } }],
  ],
};

const SUMMARY = [
  "## Goal",
  "Raise the retry limit of the sample service and document it.",
  "## Progress",
  "- Surveyed the repository, read the retry code, configuration and design notes.",
  "- Changed retryLimit from 3 to 5 in src/config.js.",
  "## Next steps",
  "- Review the remaining modules.",
].join("\n");

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
}

function promptChars(body) {
  let chars = 0;
  for (const message of body.messages ?? []) {
    chars += textOf(message.content).length;
    for (const call of message.tool_calls ?? []) {
      chars += call.function.name.length + call.function.arguments.length;
    }
  }
  return chars;
}

/** The scripted reply to one request: { text } or { calls: [{ name, arguments }] }. */
export function reply(body) {
  const messages = body.messages ?? [];
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user") {
      lastUser = i;
      break;
    }
  }
  const prompt = lastUser >= 0 ? textOf(messages[lastUser].content) : "";
  if (prompt.includes("context checkpoint summary") || prompt.includes("<previous-summary>")) {
    return { text: SUMMARY };
  }
  const plan = PLANS[prompt.trim().split(/\s+/)[0]] ?? [];
  const step = messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
  if (step < plan.length) return { calls: plan[step] };
  return { text: `Done with: ${prompt.slice(0, 60)}` };
}

function chunk(id, model, delta, finish, usage) {
  const body = {
    id,
    object: "chat.completion.chunk",
    created: 0,
    model,
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
  };
  if (usage) body.usage = usage;
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** Start the server on 127.0.0.1 (a free port); resolves to { port, close, requests }. */
export function startModelServer() {
  const state = { requests: 0, previousPrompt: 0 };
  const server = http.createServer((request, response) => {
    if (request.method !== "POST" || !request.url.endsWith("/chat/completions")) {
      response.writeHead(404).end();
      return;
    }
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (part) => {
      raw += part;
    });
    request.on("end", () => {
      const body = JSON.parse(raw);
      state.requests += 1;
      const id = `chatcmpl-${state.requests}`;
      const model = body.model;
      const answer = reply(body);
      const prompt = SYSTEM_OVERHEAD + Math.ceil(promptChars(body) / 4);
      const cached = Math.min(state.previousPrompt, prompt);
      state.previousPrompt = prompt;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(chunk(id, model, { role: "assistant", content: "" }, null));
      let completion = 0;
      if (answer.text !== undefined) {
        response.write(chunk(id, model, { content: answer.text }, null));
        response.write(chunk(id, model, {}, "stop"));
        completion = Math.ceil(answer.text.length / 4);
      } else {
        answer.calls.forEach((call, index) => {
          const args = JSON.stringify(call.arguments);
          completion += Math.ceil((call.name.length + args.length) / 4);
          const toolCall = {
            index,
            id: `call_${state.requests}_${index}`,
            type: "function",
            function: { name: call.name, arguments: args },
          };
          response.write(chunk(id, model, { tool_calls: [toolCall] }, null));
        });
        response.write(chunk(id, model, {}, "tool_calls"));
      }
      const usage = {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: cached },
      };
      response.write(chunk(id, model, null, null, usage));
      response.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        port: server.address().port,
        state,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}
