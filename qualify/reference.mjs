// Reference: which payload leaves a correct clearing is allowed (and required) to change.
//
// Guarantees: for one captured original payload and one targeted result text, `locateTarget`
// returns the path of the single string leaf that carries that result, or a fixed failure code.
// Two independent rules must agree (R-Q-2 "only targeted earlier result-text leaves"):
//   1. by value: exactly one string leaf in the whole payload equals the result text
//      (fixture texts are unique, so a second match would make the target ambiguous);
//   2. by place: that leaf is the result-content slot of the API's tool-result item:
//      anthropic-messages  messages[i].content[j].content          where content[j].type == "tool_result"
//      openai-responses    input[i].output                          where input[i].type == "function_call_output"
//      openai-codex-resp.  input[i].output                          (same shape as openai-responses)
//      openai-completions  messages[i].content                      where messages[i].role == "tool"
// A correct cleared payload has the placeholder text at exactly these paths.

export const TARGET_NOT_LOCATED = "TARGET_NOT_LOCATED";
export const TARGET_AMBIGUOUS = "TARGET_AMBIGUOUS";
export const TARGET_MISPLACED = "TARGET_MISPLACED";

/** Every string leaf as [path, value]; paths are arrays of keys / indices. */
export function stringLeaves(tree) {
  const out = [];
  const stack = [[[], tree]];
  while (stack.length > 0) {
    const [path, node] = stack.pop();
    if (typeof node === "string") {
      out.push([path, node]);
    } else if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([[...path, i], child]));
    } else if (node !== null && typeof node === "object") {
      for (const key of Object.keys(node)) stack.push([[...path, key], node[key]]);
    }
  }
  return out;
}

function at(tree, path) {
  let node = tree;
  for (const key of path) node = node?.[key];
  return node;
}

/** Rule 2: is `path` the result-content slot of a tool-result item for this API? */
export function isResultSlot(api, payload, path) {
  if (api === "anthropic-messages") {
    return (
      path.length === 5 &&
      path[0] === "messages" &&
      path[2] === "content" &&
      path[4] === "content" &&
      at(payload, path.slice(0, 4))?.type === "tool_result"
    );
  }
  if (api === "openai-responses" || api === "openai-codex-responses") {
    return (
      path.length === 3 &&
      path[0] === "input" &&
      path[2] === "output" &&
      at(payload, path.slice(0, 2))?.type === "function_call_output"
    );
  }
  if (api === "openai-completions") {
    return (
      path.length === 3 &&
      path[0] === "messages" &&
      path[2] === "content" &&
      at(payload, path.slice(0, 2))?.role === "tool"
    );
  }
  return false;
}

/** The path of the leaf carrying `resultText`, or `{ error: <fixed code> }`. */
export function locateTarget(api, payload, resultText) {
  const matches = stringLeaves(payload).filter(([, value]) => value === resultText);
  if (matches.length === 0) return { error: TARGET_NOT_LOCATED };
  if (matches.length > 1) return { error: TARGET_AMBIGUOUS };
  const [path] = matches[0];
  if (!isResultSlot(api, payload, path)) return { error: TARGET_MISPLACED };
  return { path };
}

/** The payload a correct clearing must produce: the original with each target leaf replaced. */
export function expectedCleared(original, targetPaths, placeholder) {
  const expected = structuredClone(original);
  for (const path of targetPaths) {
    const parent = at(expected, path.slice(0, -1));
    parent[path[path.length - 1]] = placeholder;
  }
  return expected;
}
