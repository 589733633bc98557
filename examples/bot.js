// A Hanamikoji bot speaking the bot API (hanamikoji-bot/1, docs/bots.md) directly, with Node's
// built-in WebSocket and nothing else: it accepts every challenge the server offers it and
// plays a random legal move at each of its decisions.
//
//   node examples/bot.js http://127.0.0.1:8000 TOKEN          (Node 22 or later)
//   node --experimental-websocket examples/bot.js URL TOKEN    (Node 20.10 to 21)
//
// The token is the bot's, from the account page. Everything it prints goes to standard error.

const [server, token] = process.argv.slice(2);
if (!server || !token) {
  console.error("usage: node examples/bot.js SERVER_URL TOKEN");
  process.exit(2);
}
const url = server.replace(/^http/, "ws").replace(/\/+$/, "") + "/ws/bot";
const ws = new WebSocket(url);
const send = (message) => ws.send(JSON.stringify(message));

ws.addEventListener("open", () => {
  send({ type: "hello", protocol: "hanamikoji-bot/1", token, engine: "examples/bot.js" });
});

ws.addEventListener("message", (event) => {
  let msg;
  try {
    msg = JSON.parse(event.data);
  } catch {
    return; // not JSON: ignored
  }
  switch (msg.type) {
    case "welcome":
      console.error(`connected as ${msg.bot}; waiting for challenges`);
      break;
    case "challenge": // the server offers only what the bot's owner lets it accept
      console.error(`challenge from ${msg.challenge.name || "someone"}: accepted`);
      send({ type: "accept", id: msg.challenge.id });
      break;
    case "game":
      console.error(`game ${msg.game}: seat ${msg.seat} against ${msg.opponent}`);
      break;
    case "act": {
      // msg.view is this seat's VIEW only; msg.legal its legal moves; msg.clock_ms an aim.
      const move = msg.legal[Math.floor(Math.random() * msg.legal.length)];
      send({ type: "move", game: msg.game, move, version: msg.version });
      break;
    }
    case "result":
      console.error(`game ${msg.game}: over (${msg.reason}), winner ${msg.winner}`);
      break;
    case "error":
      console.error(`the server says (${msg.code}): ${msg.message}`);
      if (["bad-token", "revoked", "in-use", "disabled"].includes(msg.code)) process.exit(1);
      break;
  }
});

ws.addEventListener("close", () => process.exit(0));
