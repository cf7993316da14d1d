// Complete-tree payload diff with fixed category codes (R-Q-2).
//
// Guarantees: `diffPayloads(expected, actual, targets)` walks both JSON trees completely and
// returns one entry per unintended difference, each with exactly one category from CATEGORIES.
// `expected` is the original payload with only the reference's target leaves replaced by the
// placeholder (reference.mjs), so any difference at all is unintended. Object key order is not
// compared (JSON objects are unordered); array order is. Nothing is skipped: an unknown place
// falls back to OTHER_LEAF (leaf values) or STRUCTURE (shape changes).

export const CATEGORIES = [
  "TOOL_CALL_ARGUMENTS",
  "REASONING",
  "SIGNATURE",
  "ORDERING",
  "ID",
  "PAIRING",
  "CACHE_CONTROL",
  "OTHER_LEAF",
  "STRUCTURE",
  "UNTARGETED_RESULT_TEXT",
  "TARGET_NOT_CHANGED",
  "TARGET_WRONG_VALUE",
  "TARGET_NOT_LOCATED",
];

const SIGNATURE_KEYS = new Set(["signature", "encrypted_content", "thought_signature", "thoughtSignature", "reasoning_details"]);
const REASONING_KEYS = new Set(["thinking", "reasoning", "reasoning_content", "reasoning_text", "summary"]);
const PAIRING_KEYS = new Set(["tool_use_id", "tool_call_id"]);
const ID_KEYS = new Set(["id", "call_id"]);
const RESULT_KINDS = new Set(["tool_result", "function_call_output"]);

/** Canonical JSON (sorted keys) so equality and permutation checks ignore key order only. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function kindOf(node) {
  if (!isObject(node)) return undefined;
  return node.type ?? (node.role === "tool" ? "tool_message" : undefined);
}

function samePath(a, b) {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** Category of a difference at `path`, given the objects enclosing it (outermost first). */
function classify(path, enclosing, container) {
  const keys = path.filter((k) => typeof k === "string");
  const last = keys[keys.length - 1];
  const kinds = new Set(enclosing.map(kindOf).filter(Boolean));
  if (keys.includes("cache_control")) return "CACHE_CONTROL";
  if (keys.some((k) => SIGNATURE_KEYS.has(k)) || kinds.has("redacted_thinking")) return "SIGNATURE";
  if (keys.some((k) => REASONING_KEYS.has(k)) || kinds.has("thinking") || kinds.has("reasoning")) return "REASONING";
  if (keys.includes("arguments") || (keys.includes("input") && kinds.has("tool_use"))) return "TOOL_CALL_ARGUMENTS";
  if (PAIRING_KEYS.has(last) || (last === "call_id" && kinds.has("function_call_output"))) return "PAIRING";
  if (ID_KEYS.has(last)) return "ID";
  if ([...kinds].some((k) => RESULT_KINDS.has(k)) || kinds.has("tool_message")) return "UNTARGETED_RESULT_TEXT";
  return container ? "STRUCTURE" : "OTHER_LEAF";
}

/** Category of a whole array element present on one side only. */
function classifyElement(path, enclosing, element) {
  const kind = kindOf(element);
  if (kind === "reasoning" || kind === "redacted_thinking") return "SIGNATURE";
  if (kind === "thinking") return "signature" in element ? "SIGNATURE" : "REASONING";
  if (kind === "function_call" || kind === "tool_use" || RESULT_KINDS.has(kind) || kind === "tool_message") {
    return "PAIRING";
  }
  return classify(path, [...enclosing, element], true);
}

/** Longest common subsequence of two arrays of canonical strings: matched index pairs. */
function lcsPairs(a, b) {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const pairs = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (table[i + 1][j] >= table[i][j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  return pairs;
}

function diffArrays(expected, actual, path, enclosing, ctx) {
  const ce = expected.map(canonical);
  const ca = actual.map(canonical);
  if (ce.length === ca.length) {
    if (ce.every((c, i) => c === ca[i])) return;
    if ([...ce].sort().join("\n") === [...ca].sort().join("\n")) {
      ctx.push("ORDERING", path);
      return;
    }
    expected.forEach((child, i) => diffNode(child, actual[i], [...path, i], enclosing, ctx));
    return;
  }
  const pairs = lcsPairs(ce, ca);
  const matchedE = new Set(pairs.map(([i]) => i));
  const matchedA = new Set(pairs.map(([, j]) => j));
  const onlyE = expected.map((_, i) => i).filter((i) => !matchedE.has(i));
  const onlyA = actual.map((_, j) => j).filter((j) => !matchedA.has(j));
  // Elements changed in place pair up in order; the surplus was dropped or inserted.
  const common = Math.min(onlyE.length, onlyA.length);
  for (let k = 0; k < common; k++) {
    diffNode(expected[onlyE[k]], actual[onlyA[k]], [...path, onlyE[k]], enclosing, ctx);
  }
  for (const i of onlyE.slice(common)) ctx.push(classifyElement([...path, i], enclosing, expected[i]), [...path, i]);
  for (const j of onlyA.slice(common)) ctx.push(classifyElement([...path, j], enclosing, actual[j]), [...path, j]);
}

function diffNode(expected, actual, path, enclosing, ctx) {
  const target = ctx.targets.find((t) => samePath(t.path, path));
  if (target) {
    if (actual === expected) return;
    ctx.push(actual === target.originalText ? "TARGET_NOT_CHANGED" : "TARGET_WRONG_VALUE", path);
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    diffArrays(expected, actual, path, enclosing, ctx);
    return;
  }
  if (isObject(expected) && isObject(actual)) {
    const inner = [...enclosing, expected];
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of [...keys].sort()) {
      if (!Object.hasOwn(actual, key) || !Object.hasOwn(expected, key)) {
        ctx.push(classify([...path, key], inner, true), [...path, key]);
      } else {
        diffNode(expected[key], actual[key], [...path, key], inner, ctx);
      }
    }
    return;
  }
  if (canonical(expected) === canonical(actual)) return;
  const container = [expected, actual].some((v) => Array.isArray(v) || isObject(v));
  ctx.push(classify(path, enclosing, container), path);
}

/**
 * Unintended differences between the expected cleared payload and the actual one.
 * `targets` is a list of `{ path, originalText }` from the reference.
 */
export function diffPayloads(expected, actual, targets) {
  const found = [];
  const ctx = { targets, push: (category, path) => found.push({ category, path }) };
  diffNode(expected, actual, [], [], ctx);
  return found;
}
