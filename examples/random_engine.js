#!/usr/bin/env node
// A minimal Hanamikoji engine (protocol hanamikoji-engine/1, see docs/protocol.md):
// it plays a uniformly random move from the referee's list of legal moves.
// Node only, no packages. Try it:  hanamikoji match greedy "cmd:node examples/random_engine.js"
"use strict";
const readline = require("readline");

// Standard output carries answers only, one JSON object per line; logs go to standard error.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
let quitting = false;

input.on("line", (line) => {
  if (quitting || line.trim() === "") return; // blank lines are ignored
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    msg = undefined;
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    console.error(`random-js: ignoring a line that is not a JSON object: ${line.slice(0, 80)}`);
    return;
  }
  // Only "type" matters to us; keys we don't know are simply never looked at.
  if (msg.type === "hello") {
    send({ type: "hello", name: "random-js", version: "1.0" });
  } else if (msg.type === "act") {
    // "legal" is never empty when we are asked to act; any of its moves is fine.
    const move = msg.legal[Math.floor(Math.random() * msg.legal.length)];
    send({ type: "move", move: move });
  } else if (msg.type === "quit") {
    quitting = true; // ignore anything after "quit", even lines already read
    input.close();
    process.stdin.destroy(); // stop reading: Node exits once the output is written
  }
  // "game" and "result" (and unknown types) need no answer.
});
