// A minimal Ellibir bot for the harness protocol (docs/protocol.md): Node.js 20, no npm packages.
//
// It draws from the stock and discards its highest-value card (never a joker while it has another
// card); when the harness refuses a decision, it tries another card. Make it play better by
// changing draw() and play(): both get the current view and what is legal now.
"use strict";

const readline = require("node:readline");

const NAME = "starter-javascript";
const VERSION = "1.0";
const PROTOCOL = 2; // 2: this process may play many matches (new_match after match_end); 1: one match

// stderr is the bot's own log: the harness keeps its tail with the match.
function log(text) {
  process.stderr.write(text + "\n");
}

// C3: 2-10 their number, J Q K 10, A 11, the joker 25.
function value(card) {
  if (card === "JK") return 25;
  const rank = card.slice(0, -1);
  return { J: 10, Q: 10, K: 10, A: 11 }[rank] || parseInt(rank, 10);
}

// The cards of the hand that may be discarded: the hand less the copies in legal.must_keep.
function discardable(view, legal) {
  const cards = view.hand.slice();
  for (const card of legal.must_keep || []) {
    const at = cards.indexOf(card);
    if (at >= 0) cards.splice(at, 1);
  }
  return cards;
}

// The decisions: change these two to make the bot play ---------------------------------------

// The draw decision (docs/engine.md): draw the top of the stock.
function draw(view, legal, avoid) {
  return { draw: "stock" };
}

// The play decision: no plays, discard the highest card not refused already this turn.
function play(view, legal, avoid) {
  const cards = discardable(view, legal);
  let fresh = cards.filter((c) => !avoid.has(c));
  if (fresh.length === 0) fresh = cards;
  const key = (c) => (c === "JK" ? 0 : 100) + value(c);
  const card = fresh.reduce((best, c) => (key(c) > key(best) ? c : best));
  return { plays: [], discard: card };
}

// The protocol --------------------------------------------------------------------------------

const bot = {
  seat: null,
  rules: null,
  view: null, // the current view, rebuilt from full views and changed fields
  history: [], // this round's public events
  avoid: new Set(), // discards refused during this turn
  moment: null,

  hello(msg) {
    if (!(msg.protocols || [1]).includes(PROTOCOL) || msg.game !== "ellibir") {
      return { type: "error", seq: msg.seq, reason: `${NAME} plays ellibir, protocol ${PROTOCOL}` };
    }
    this.seat = msg.seat;
    this.rules = msg.rules;
    return { type: "hello", seq: msg.seq, name: NAME, version: VERSION, protocol: PROTOCOL };
  },

  new_match(msg) {
    // The next match in this process: nothing of the last one carries over but what you keep on
    // purpose (the harness never shows a process the same deals twice).
    Object.assign(this, { view: null, history: [], avoid: new Set(), moment: null });
    return this.hello(msg);
  },

  round_start(msg) {
    this.view = null;
    this.history = [];
  },

  events(msg) {
    this.history.push(...msg.events);
  },

  request(msg) {
    if (msg.view) this.view = msg.view;
    else Object.assign(this.view, msg.changed);
    const moment = `${msg.round}/${msg.turn}/${msg.decide}`;
    if (moment !== this.moment) {
      this.moment = moment;
      this.avoid = new Set();
    }
    const decide = msg.decide === "draw" ? draw : play;
    const decision = decide(this.view, msg.legal, this.avoid);
    if (decision.discard) this.avoid.add(decision.discard);
    return { type: "decision", seq: msg.seq, decision };
  },

  error(msg) {
    log(`refused (${msg.rule}): ${msg.reason}`);
  },

  round_end(msg) {
    log(`round ${msg.round}: score ${msg.record.seats[this.seat].score}, totals ${msg.totals}`);
  },
};

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === "match_end") {
    log(`match over: ranks ${msg.ranks}`);
    return; // protocol 2: a new_match may follow; the bot ends when stdin closes
  }
  const handler = bot[msg.type];
  const reply = handler ? handler.call(bot, msg) : null;
  if (reply) process.stdout.write(JSON.stringify(reply) + "\n");
});
