// Preloaded into pi (node --import guard.mjs): every TCP connection must go to the loopback
// address, whatever code opens it (undici's fetch, an SDK, a version check). Any other target
// fails the connection at once and is counted on stderr, so a run that tried to reach the
// network cannot pass unnoticed (docs/pi-session-writer.md).

import net from "node:net";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const original = net.Socket.prototype.connect;

net.Socket.prototype.connect = function connect(...args) {
  const first = args[0];
  let host;
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.path !== undefined) return original.apply(this, args); // a local socket file
    host = first.host ?? "localhost";
  } else if (typeof first === "number" || /^\d+$/.test(String(first))) {
    host = typeof args[1] === "string" ? args[1] : "localhost";
  } else {
    return original.apply(this, args); // a local socket path
  }
  if (!LOOPBACK.has(host)) {
    process.stderr.write("pi-sessions: NETWORK_ATTEMPTED\n");
    process.exitCode = 3;
    throw new Error("pi-sessions guard: only 127.0.0.1 may be contacted");
  }
  return original.apply(this, args);
};
