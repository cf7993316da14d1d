// A measured prototype of the native replay core (docs/performance.md, "A native replay core").
//
// Not part of the package and never imported by it: `bench/native_core/bench_native.py` builds
// it into a temporary directory and times it against the bare msgspec decode of the same
// bytes. It answers one question: what does the decode-and-replay work cost when one native
// call takes a whole journal's bytes and returns compact columns?
//
// One call, `scan(data)`, per journal file:
//   - splits the bytes into lines and parses each with simdjson (full parse: UTF-8 and JSON
//     syntax validated), refusing what the fast path refuses: duplicate keys, unknown fields of
//     records, messages, usages and content blocks, a wrong `kind` / `role` / `type` or enum
//     value, a missing or mistyped field it reads, an empty id, a count beyond its range,
//     escaped surrogates (a pair is left to the strict path too), a line longer or nested
//     deeper than the policy's limits, seq out of order;
//   - measures every message as the token heuristic does (UTF-16 units of texts and thinking,
//     a tool call's name plus the UTF-16 length of JSON.stringify(arguments), a fixed charge
//     per image, ceil(units / 4));
//   - runs the replay's context walk: a running heuristic estimate of the context, reset at
//     each checkpoint to the summary plus the kept messages; every assistant message is a
//     request row (context estimate before it, its usage tokens when valid);
//   - pairs every tool result with its call's start and end by call id (ids interned), and
//     emits a result row (request index at placement, UTF-8 bytes, tokens, status, is_error).
// It returns a dict of packed little-endian columns (bytes) and counts; lines it does not
// vouch for are listed, for the existing strict path to decide (as the fast path does now).
//
// What it leaves out (stated in docs/performance.md): the header's outcomes (it only refuses a
// header it does not vouch for), the shape of an MCP payload and of a usage's cost, runs and
// turns as a state machine, redactions and the guard, finishing results (ids, retention), the
// sidecar lookups, eligibility and everything after replay.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "simdjson.h"

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

namespace {

// The policy's numbers, passed by the build (bench_native.py reads them from policy/).
constexpr int kUnitsPerToken = UNITS_PER_TOKEN;      // eligibility.json utf16UnitsPerToken
constexpr int kTokensPerImage = TOKENS_PER_IMAGE;    // eligibility.json tokensPerImage
constexpr size_t kMaxNestingDepth = MAX_NESTING_DEPTH;  // limits.json maxNestingDepth
constexpr int64_t kMaxTokens = MAX_TOKENS;           // ranges.MAX_TOKENS
constexpr size_t kMaxLineBytes = MAX_LINE_BYTES;     // limits.json maxJournalLineBytes

struct Refused {};  // a line the prototype does not vouch for

// Branch-free, so that the compiler vectorizes it: a lead byte starts a code point, and a
// four-byte one (above U+FFFF) is a surrogate pair. The text is valid UTF-8 (simdjson checked).
int64_t utf16_units(std::string_view s) {
  int64_t units = 0;
  for (unsigned char c : s) units += ((c & 0xC0) != 0x80) + (c >= 0xF0);
  return units;
}

// What JSON.stringify adds to a byte of a string: `"` and `\\` and \b \f \n \r \t become two
// characters, every other control six.
constexpr std::array<uint8_t, 256> kEscapeExtra = [] {
  std::array<uint8_t, 256> extra{};
  for (int c = 0; c < 0x20; ++c) extra[c] = 5;
  for (int c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'}) extra[c] = 1;
  return extra;
}();

int64_t json_string_units(std::string_view s) {
  int64_t extra = 0;
  for (unsigned char c : s) extra += kEscapeExtra[c];
  return 2 + utf16_units(s) + extra;
}

// String(value) for a finite double, JavaScript layout, from the shortest round-trip digits.
int64_t js_number_units(double value) {
  if (value == 0) return 1;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value < 0 ? -value : value,
                           std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // d[.ddd]e[+-]XX
  size_t e = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (sci[i] != '.') digits.push_back(sci[i]);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int exponent = std::stoi(std::string(sci.substr(e + 1)));
  int64_t k = digits.size();
  int64_t n = exponent + 1;
  int64_t sign = value < 0 ? 1 : 0;
  if (k <= n && n <= 21) return sign + n;
  if (0 < n && n <= 21) return sign + k + 1;
  if (-6 < n && n <= 0) return sign + 2 - n + k;
  int64_t exp_digits = std::to_string(n - 1 < 0 ? 1 - n : n - 1).size();
  return sign + k + (k > 1 ? 1 : 0) + 2 + exp_digits;
}

void check_unique_keys(object obj) {
  size_t size = obj.size();
  if (size < 2) return;
  std::string_view keys[64];
  std::vector<std::string_view> many;
  std::string_view* seen = keys;
  if (size > 64) {
    many.resize(size);
    seen = many.data();
  }
  size_t i = 0;
  for (auto field : obj) {
    for (size_t j = 0; j < i; ++j)
      if (seen[j] == field.key) throw Refused{};
    seen[i++] = field.key;
  }
}

// UTF-16 length of JSON.stringify(value), checking duplicate keys (the parser bounds the
// nesting of the whole line).
int64_t stringify_units(element value) {
  switch (value.type()) {
    case element_type::OBJECT: {
      object obj = value.get_object().value_unsafe();
      check_unique_keys(obj);
      int64_t units = 2, count = 0;
      for (auto field : obj) {
        units += json_string_units(field.key) + 1 + stringify_units(field.value);
        ++count;
      }
      return units + (count ? count - 1 : 0);
    }
    case element_type::ARRAY: {
      // A named copy: a range-for over the temporary result's value would dangle.
      array items = value.get_array().value_unsafe();
      int64_t units = 2, count = 0;
      for (element item : items) {
        units += stringify_units(item);
        ++count;
      }
      return units + (count ? count - 1 : 0);
    }
    case element_type::STRING:
      return json_string_units(value.get_string().value_unsafe());
    case element_type::INT64:
      return std::to_string(value.get_int64().value_unsafe()).size();
    case element_type::UINT64:
      throw Refused{};  // beyond a double's exact integers: the strict path decides
    case element_type::DOUBLE:
      return js_number_units(value.get_double().value_unsafe());
    case element_type::BOOL:
      return value.get_bool().value_unsafe() ? 4 : 5;
    case element_type::NULL_VALUE:
      return 4;
  }
  throw Refused{};
}

// Every key of `obj` is one of `allowed` (forbid_unknown_fields), and none repeats.
template <size_t N>
void check_fields(object obj, const std::string_view (&allowed)[N]) {
  check_unique_keys(obj);
  for (auto field : obj) {
    bool known = false;
    for (auto name : allowed)
      if (field.key == name) {
        known = true;
        break;
      }
    if (!known) throw Refused{};
  }
}

std::string_view nonempty_field(object obj, std::string_view key);

std::string_view text_field(object obj, std::string_view key) {
  std::string_view s;
  if (obj[key].get_string().get(s)) throw Refused{};
  return s;
}

std::string_view nonempty_field(object obj, std::string_view key) {
  std::string_view s = text_field(obj, key);
  if (s.empty()) throw Refused{};
  return s;
}

bool one_of(std::string_view value, std::initializer_list<std::string_view> allowed) {
  for (auto name : allowed)
    if (value == name) return true;
  return false;
}

int64_t int_field(object obj, std::string_view key, int64_t max = (int64_t{1} << 53) - 1) {
  int64_t v;
  if (obj[key].get_int64().get(v) || v < 0 || v > max) throw Refused{};
  return v;
}

bool bool_field(object obj, std::string_view key) {
  bool v;
  if (obj[key].get_bool().get(v)) throw Refused{};
  return v;
}

object object_field(object obj, std::string_view key) {
  object v;
  if (obj[key].get_object().get(v)) throw Refused{};
  return v;
}

array array_field(object obj, std::string_view key) {
  array v;
  if (obj[key].get_array().get(v)) throw Refused{};
  return v;
}

constexpr std::string_view kTextFields[] = {"type", "text", "textSignature"};
constexpr std::string_view kImageFields[] = {"type", "data", "mimeType"};
constexpr std::string_view kThinkingFields[] = {"type", "thinking", "thinkingSignature",
                                                "redacted"};
constexpr std::string_view kToolCallFields[] = {"type", "id", "name", "arguments",
                                                "thoughtSignature"};
constexpr std::string_view kUserFields[] = {"role", "content", "timestamp"};
constexpr std::string_view kAssistantFields[] = {
    "role",  "content",    "api",       "provider",     "model",
    "usage", "stopReason", "timestamp", "errorMessage", "responseId"};
constexpr std::string_view kUsageFields[] = {"input", "output", "cacheRead", "cacheWrite",
                                             "totalTokens", "cost"};
constexpr std::string_view kHeaderFields[] = {
    "seq",    "kind",   "format",   "version", "journalId", "physicalConversationId",
    "logicalConversationId", "origin", "createdAt"};
constexpr std::string_view kTurnFields[] = {"seq", "kind", "hostTurnId", "message"};
constexpr std::string_view kRunStartFields[] = {"seq",    "kind",      "hostTurnId",
                                                "runId",  "owner",     "reason",
                                                "timestamp", "toolsetFingerprint"};
constexpr std::string_view kMessageFields[] = {"seq", "kind", "runId", "message"};
constexpr std::string_view kCallStartFields[] = {"seq",       "kind",     "runId",
                                                 "callId",    "toolName", "arguments",
                                                 "timestamp", "payload"};
constexpr std::string_view kCallEndFields[] = {"seq",    "kind",   "runId",  "callId",
                                               "status", "returned", "placed", "timestamp"};
constexpr std::string_view kRunEndFields[] = {"seq", "kind", "runId", "status", "timestamp"};
constexpr std::string_view kCheckpointFields[] = {"seq",        "kind",        "trigger",
                                                  "tokensBefore", "tokensAfter", "summary",
                                                  "firstKeptSeq", "timestamp"};
constexpr std::string_view kRedactionFields[] = {"seq", "kind", "targetSeq", "scope", "format"};
constexpr std::string_view kCloseFields[] = {"seq", "kind", "timestamp"};
constexpr std::string_view kResultFields[] = {"role",    "toolCallId", "toolName", "content",
                                              "isError", "timestamp",  "details"};

// Units of a content list: text, image (and, for assistants, thinking and tool calls).
int64_t block_units(array blocks, bool assistant) {
  int64_t units = 0;
  for (element block : blocks) {
    object obj;
    if (block.get_object().get(obj)) throw Refused{};
    std::string_view type = text_field(obj, "type");
    if (type == "text") {
      check_fields(obj, kTextFields);
      units += utf16_units(text_field(obj, "text"));
    } else if (type == "image" && !assistant) {
      check_fields(obj, kImageFields);
      text_field(obj, "data");
      units += int64_t{kTokensPerImage} * kUnitsPerToken;
    } else if (type == "thinking" && assistant) {
      check_fields(obj, kThinkingFields);
      units += utf16_units(text_field(obj, "thinking"));
    } else if (type == "toolCall" && assistant) {
      check_fields(obj, kToolCallFields);
      if (text_field(obj, "id").empty()) throw Refused{};
      std::string_view name = text_field(obj, "name");
      if (name.empty()) throw Refused{};
      element arguments;
      if (obj["arguments"].get(arguments) || !arguments.is_object()) throw Refused{};
      units += utf16_units(name) + stringify_units(arguments);
    } else {
      throw Refused{};
    }
  }
  return units;
}

int64_t tokens(int64_t units) { return (units + kUnitsPerToken - 1) / kUnitsPerToken; }

struct Call {
  int64_t start_line = -1;
  int64_t end_line = -1;
  uint8_t status = 0;  // 0 none, 1 success, 2 error, 3 aborted, 4 denied
  bool returned = false;
  bool placed = false;
};

struct Journal {
  // request rows
  std::vector<int64_t> request_estimate;
  std::vector<int64_t> request_usage;
  // result rows
  std::vector<uint32_t> result_call;
  std::vector<uint32_t> result_tool;
  std::vector<uint32_t> result_request;
  std::vector<uint64_t> result_bytes;
  std::vector<uint32_t> result_tokens;
  std::vector<uint8_t> result_status;
  std::vector<uint8_t> result_error;
  std::vector<int64_t> unvouched;
  // replay state
  std::unordered_map<std::string, uint32_t> call_ids;
  std::unordered_map<std::string, uint32_t> tool_names;
  std::vector<Call> calls;
  std::vector<int64_t> message_seq;     // messages in the context, in order
  std::vector<int64_t> message_tokens;  // and their heuristic tokens
  int64_t context = 0;
  int64_t next_seq = 0;
  int64_t lines = 0;
  int64_t checkpoints = 0;
};

uint32_t intern(std::unordered_map<std::string, uint32_t>& table, std::string_view key) {
  auto [it, inserted] = table.try_emplace(std::string(key), uint32_t(table.size()));
  return it->second;
}

uint32_t call_index(Journal& j, std::string_view id) {
  uint32_t index = intern(j.call_ids, id);
  if (index == j.calls.size()) j.calls.emplace_back();
  return index;
}

void place(Journal& j, int64_t seq, int64_t message_tokens) {
  j.message_seq.push_back(seq);
  j.message_tokens.push_back(message_tokens);
  j.context += message_tokens;
}

void message_record(Journal& j, object record, int64_t seq, bool pre_turn) {
  object message = object_field(record, "message");
  std::string_view role = text_field(message, "role");
  int_field(message, "timestamp");
  if (role == "user") {
    check_fields(message, kUserFields);
    element content;
    if (message["content"].get(content)) throw Refused{};
    int64_t units;
    std::string_view text;
    if (!content.get_string().get(text))
      units = utf16_units(text);
    else if (array blocks; !content.get_array().get(blocks))
      units = block_units(blocks, false);
    else
      throw Refused{};
    place(j, seq, tokens(units));
    return;
  }
  if (pre_turn) throw Refused{};  // a turn starts with a user message
  if (role == "assistant") {
    check_fields(message, kAssistantFields);
    for (auto key : {"api", "provider", "model"})
      if (text_field(message, key).empty()) throw Refused{};
    std::string_view stop = text_field(message, "stopReason");
    object usage = object_field(message, "usage");
    check_fields(usage, kUsageFields);
    int64_t input = int_field(usage, "input", kMaxTokens);
    int64_t output = int_field(usage, "output", kMaxTokens);
    int64_t cache_read = int_field(usage, "cacheRead", kMaxTokens);
    int64_t cache_write = int_field(usage, "cacheWrite", kMaxTokens);
    int64_t total = int_field(usage, "totalTokens", kMaxTokens);
    bool recorded = input || output || cache_read || cache_write || total;
    bool valid = recorded && stop != "error" && stop != "aborted";
    j.request_estimate.push_back(j.context);
    j.request_usage.push_back(valid ? (total ? total : input + output + cache_read + cache_write)
                                    : -1);
    int64_t units = block_units(array_field(message, "content"), true);
    place(j, seq, tokens(units));
    return;
  }
  if (role == "toolResult") {
    check_fields(message, kResultFields);
    std::string_view call_id = text_field(message, "toolCallId");
    std::string_view tool = text_field(message, "toolName");
    if (call_id.empty() || tool.empty()) throw Refused{};
    bool is_error = bool_field(message, "isError");
    element details;
    if (!message["details"].get(details)) stringify_units(details);  // nesting and keys
    array content = array_field(message, "content");
    uint64_t bytes = 0;
    for (element block : content) {
      object obj;
      std::string_view text;
      if (!block.get_object().get(obj) && !obj["text"].get_string().get(text)) bytes += text.size();
    }
    int64_t message_tokens = tokens(block_units(content, false));
    uint32_t call = call_index(j, call_id);
    j.result_call.push_back(call);
    j.result_tool.push_back(intern(j.tool_names, tool));
    j.result_request.push_back(uint32_t(j.request_estimate.size()));
    j.result_bytes.push_back(bytes);
    j.result_tokens.push_back(uint32_t(message_tokens));
    j.result_status.push_back(0);  // filled from the call's end when the journal closes
    j.result_error.push_back(is_error);
    place(j, seq, message_tokens);
    return;
  }
  throw Refused{};
}

void checkpoint(Journal& j, object record, int64_t seq) {
  std::string_view summary = text_field(record, "summary");
  int_field(record, "tokensBefore", kMaxTokens);
  int_field(record, "tokensAfter", kMaxTokens);
  element first_kept;
  if (record["firstKeptSeq"].get(first_kept)) throw Refused{};
  std::vector<int64_t> kept_seq, kept_tokens;
  int64_t context = tokens(utf16_units(summary));
  if (!first_kept.is_null()) {
    int64_t first;
    if (first_kept.get_int64().get(first) || first < 0 || first >= seq) throw Refused{};
    for (size_t i = 0; i < j.message_seq.size(); ++i)
      if (j.message_seq[i] >= first) {
        kept_seq.push_back(j.message_seq[i]);
        kept_tokens.push_back(j.message_tokens[i]);
        context += j.message_tokens[i];
      }
  }
  j.message_seq.swap(kept_seq);
  j.message_tokens.swap(kept_tokens);
  j.context = context;
  j.checkpoints += 1;
}

bool has_escaped_surrogate(std::string_view line) {
  for (size_t i = line.find("\\u"); i != std::string_view::npos; i = line.find("\\u", i + 2)) {
    if (i + 3 < line.size() && (line[i + 2] == 'd' || line[i + 2] == 'D')) {
      char c = line[i + 3] | 0x20;
      if (c == '8' || c == '9' || c == 'a' || c == 'b' || c == 'c' || c == 'd' || c == 'e' ||
          c == 'f')
        return true;
    }
  }
  return false;
}

void line(Journal& j, simdjson::dom::parser& parser, const char* data, size_t size) {
  std::string_view text(data, size);
  if (size > kMaxLineBytes || has_escaped_surrogate(text)) throw Refused{};
  element doc;
  // The buffer holds the rest of the file and SIMDJSON_PADDING spare bytes after it.
  if (parser.parse(data, size, false).get(doc)) throw Refused{};
  object record;
  if (doc.get_object().get(record)) throw Refused{};
  int64_t seq = int_field(record, "seq");
  if (seq != j.next_seq) throw Refused{};
  j.next_seq += 1;
  std::string_view kind = text_field(record, "kind");
  if (kind == "message") {
    check_fields(record, kMessageFields);
    nonempty_field(record, "runId");
    message_record(j, record, seq, false);
  } else if (kind == "turn_start") {
    check_fields(record, kTurnFields);
    nonempty_field(record, "hostTurnId");
    message_record(j, record, seq, true);
  } else if (kind == "tool_call_start") {
    check_fields(record, kCallStartFields);
    nonempty_field(record, "runId");
    Call& call = j.calls[call_index(j, nonempty_field(record, "callId"))];
    nonempty_field(record, "toolName");
    int_field(record, "timestamp");
    element arguments;
    if (record["arguments"].get(arguments) || !arguments.is_object()) throw Refused{};
    stringify_units(arguments);
    element payload;
    if (!record["payload"].get(payload)) stringify_units(payload);  // keys (shape: Python)
    call.start_line = j.lines;
  } else if (kind == "tool_call_end") {
    check_fields(record, kCallEndFields);
    nonempty_field(record, "runId");
    Call& call = j.calls[call_index(j, nonempty_field(record, "callId"))];
    std::string_view status = text_field(record, "status");
    call.status = status == "success" ? 1 : status == "error" ? 2 : status == "aborted" ? 3
                  : status == "denied"  ? 4 : 0;
    if (!call.status) throw Refused{};
    call.returned = bool_field(record, "returned");
    call.placed = bool_field(record, "placed");
    int_field(record, "timestamp");
    call.end_line = j.lines;
  } else if (kind == "checkpoint") {
    check_fields(record, kCheckpointFields);
    if (!one_of(text_field(record, "trigger"), {"threshold", "overflow", "manual"}))
      throw Refused{};
    int_field(record, "timestamp");
    checkpoint(j, record, seq);
  } else if (kind == "header") {
    check_fields(record, kHeaderFields);
    if (text_field(record, "format") != "pi-native-journal" || int_field(record, "version") != 2)
      throw Refused{};  // the header's outcomes are the Python side's
    for (auto key : {"journalId", "physicalConversationId", "logicalConversationId"})
      nonempty_field(record, key);
    if (!one_of(text_field(record, "origin"), {"native", "imported", "inherited"}))
      throw Refused{};
    int_field(record, "createdAt");
  } else if (kind == "run_start") {
    check_fields(record, kRunStartFields);
    nonempty_field(record, "hostTurnId");
    nonempty_field(record, "runId");
    if (!one_of(text_field(record, "reason"), {"prompt", "retry", "reprompt", "continue"}))
      throw Refused{};
    int_field(record, "timestamp");
  } else if (kind == "run_end") {
    check_fields(record, kRunEndFields);
    nonempty_field(record, "runId");
    if (!one_of(text_field(record, "status"), {"completed", "aborted", "failed", "interrupted"}))
      throw Refused{};
    int_field(record, "timestamp");
  } else if (kind == "redaction") {
    check_fields(record, kRedactionFields);
    int_field(record, "targetSeq");
    if (!one_of(text_field(record, "scope"), {"web_envelope", "text"}) ||
        !one_of(text_field(record, "format"), {"json", "text"}))
      throw Refused{};
  } else if (kind == "close") {
    check_fields(record, kCloseFields);
    int_field(record, "timestamp");
  } else {
    throw Refused{};
  }
}

template <typename T>
PyObject* column(const std::vector<T>& values) {
  return PyBytes_FromStringAndSize(reinterpret_cast<const char*>(values.data()),
                                   Py_ssize_t(values.size() * sizeof(T)));
}

int set(PyObject* dict, const char* key, PyObject* value) {
  if (!value) return -1;
  int rc = PyDict_SetItemString(dict, key, value);
  Py_DECREF(value);
  return rc;
}

PyObject* scan(PyObject*, PyObject* arg) {
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return nullptr;
  Journal j;
  {
    Py_BEGIN_ALLOW_THREADS
    // One copy of the file with simdjson's padding after it, so that every line is parsed in
    // place without a copy of its own.
    simdjson::padded_string padded(static_cast<const char*>(view.buf), size_t(view.len));
    // One parser per thread, kept across calls and grown to the longest line seen: allocating
    // it per journal cost more than parsing (the kernel zeroing fresh pages).
    thread_local simdjson::dom::parser parser;
    bool allocated = true;
    const char* data = padded.data();
    size_t size = padded.size();
    size_t start = 0;
    while (start < size) {
      const char* end = static_cast<const char*>(std::memchr(data + start, '\n', size - start));
      size_t stop = end ? size_t(end - data) : size;
      if (stop - start > parser.capacity())
        allocated = !parser.allocate(stop - start, kMaxNestingDepth);
      try {
        if (!allocated) throw Refused{};
        line(j, parser, data + start, stop - start);
      } catch (const Refused&) {
        j.unvouched.push_back(j.lines);
      }
      j.lines += 1;
      start = stop + 1;
    }
    for (size_t i = 0; i < j.result_call.size(); ++i)
      j.result_status[i] = j.calls[j.result_call[i]].status;
    Py_END_ALLOW_THREADS
  }
  PyBuffer_Release(&view);
  PyObject* out = PyDict_New();
  if (!out) return nullptr;
  if (set(out, "lines", PyLong_FromLongLong(j.lines)) ||
      set(out, "checkpoints", PyLong_FromLongLong(j.checkpoints)) ||
      set(out, "calls", PyLong_FromSize_t(j.calls.size())) ||
      set(out, "request_estimate", column(j.request_estimate)) ||
      set(out, "request_usage", column(j.request_usage)) ||
      set(out, "result_call", column(j.result_call)) ||
      set(out, "result_tool", column(j.result_tool)) ||
      set(out, "result_request", column(j.result_request)) ||
      set(out, "result_bytes", column(j.result_bytes)) ||
      set(out, "result_tokens", column(j.result_tokens)) ||
      set(out, "result_status", column(j.result_status)) ||
      set(out, "result_error", column(j.result_error)) ||
      set(out, "unvouched", column(j.unvouched))) {
    Py_DECREF(out);
    return nullptr;
  }
  return out;
}

PyMethodDef methods[] = {
    {"scan", scan, METH_O, "Decode and replay one journal's bytes into packed columns."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "replay_core", nullptr, -1, methods};

}  // namespace

PyMODINIT_FUNC PyInit_replay_core() { return PyModule_Create(&module); }
