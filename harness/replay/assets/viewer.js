"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps;
  // Each step holds only the zones that changed since the step before (harness/replay/viewer.py, _compact;
  // in hands, null: the same hand as before): rebuilt whole, once.
  (function unfold() {
    let before = null;
    for (const s of steps) {
      const z = Object.assign({}, before || {});
      for (const [key, value] of Object.entries(s.zones)) {
        z[key] = key === "hands" && before ? value.map((h, i) => (h === null ? before.hands[i] : h)) : value;
      }
      s.zones = z;
      before = z;
    }
  })();
  const rounds = new Map((data.rounds || []).map((r) => [r.round, r]));
  const $ = (id) => document.getElementById(id);
  const make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined && text !== null) el.textContent = String(text);
    return el;
  };
  const SUITS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
  let at = 0;
  let viewSeat = -1; // -1: every hand

  function card(text, faceDown) {
    if (faceDown) return make("span", "card back");
    const el = make("span", "card");
    el.dataset.card = text;
    if (text === "JK") {
      el.classList.add("joker");
      el.append(make("span", "r", "JK"), make("span", "s", "\u2605"));
      return el;
    }
    const suit = text.slice(-1), rank = text.slice(0, -1);
    if (suit === "H" || suit === "D") el.classList.add("red");
    el.append(make("span", "r", rank), make("span", "s", SUITS[suit] || suit));
    el.title = text;
    return el;
  }

  function cards(list, faceDown) {
    const box = make("div", "cards");
    for (const c of list) box.append(card(c, faceDown));
    return box;
  }

  function faulty(seat, upTo) {
    for (let i = 0; i <= upTo; i++) for (const h of steps[i].harness) if (h.e === "harness_fault" && h.seat === seat) return true;
    return false;
  }

  function takenBy(seat, upTo) {
    for (let i = upTo; i >= 0; i--) if (steps[i].seat === seat && steps[i].played_by) return steps[i].played_by;
    for (let i = 0; i <= upTo; i++) for (const h of steps[i].harness) if (h.e === "harness_takeover" && h.seat === seat) return h.by;
    return null;
  }

  function render() {
    const s = steps[at], z = s.zones;
    $("where").textContent = `step ${at + 1} / ${steps.length}`; // the round and its turn: the caption's
    $("round-jump").value = String(s.round);
    $("caption").textContent = z.caption;
    const ended = s.events.some((e) => e.e === "round_end") ? rounds.get(s.round) : null;
    const outcome = $("outcome");
    outcome.hidden = !ended;
    outcome.className = "outcome" + (ended && ended.void ? " void" : "");
    outcome.textContent = ended ? ended.outcome : "";
    const d = $("decision");
    d.replaceChildren();
    if (s.decision !== null) {
      d.append(make("span", "", `decision ${s.decision + 1}: seat ${s.seat} (${data.bots[s.seat]}) plays `),
               make("code", "", s.text));
      if (s.played_by) d.append(" ", make("span", "taken", `[${s.played_by.replace("builtin:", "")} plays]`));
      if (s.outcome && !s.outcome.accepted) {
        d.append(" ", make("span", "refused", `REFUSED ${s.outcome.rule}: ${s.outcome.reason}` +
                 (s.outcome.penalty ? ` (penalty ${s.outcome.penalty})` : "")));
      }
    } else {
      d.append(make("span", "", "the deal"));
    }
    const notes = $("notes");
    notes.replaceChildren();
    for (const h of s.harness) {
      const kind = h.e.replace("harness_", "");
      const box = make("div", "note " + kind);
      box.append(make("div", "", h.say));
      if (h.stderr) { box.append(make("div", "sub", "the bot's stderr:"), make("pre", "", h.stderr)); }
      notes.append(box);
    }
    const logs = $("logs");
    logs.replaceChildren();
    const mine = (s.logs || []).filter((x) => viewSeat < 0 || x.seat === viewSeat);
    for (const seat of [...new Set(mine.map((x) => x.seat))]) {
      const box = make("div", "log");
      box.dataset.seat = String(seat);
      box.append(make("div", "sub", `seat ${seat} (${data.bots[seat]}) wrote:`));
      const pre = make("pre");
      for (const x of mine.filter((y) => y.seat === seat)) pre.append(make("span", "l-" + x.kind, x.text), "\n");
      box.append(pre);
      logs.append(box);
    }
    const piles = $("piles");
    piles.replaceChildren();
    for (const p of z.piles) {
      const box = make("div", "pile");
      box.dataset.pile = p.id;
      box.append(make("h3", "", p.label));
      if (p.face_down) {
        box.append(make("div", "count", `${p.count} cards`));
      } else {
        const shown = p.cards.slice(-8); // the page holds the top 8 and the count (viewer.py, _compact)
        if (p.count > shown.length) box.append(make("div", "sub", `${p.count} cards, the top ${shown.length}:`));
        box.append(cards(shown, false));
        if (!p.count) box.append(make("div", "sub", "empty"));
      }
      piles.append(box);
    }
    const melds = $("melds");
    melds.replaceChildren(make("h3", "", `table: ${z.melds.length} meld(s)`));
    z.melds.forEach((m, i) => {
      const box = make("div", "meld");
      box.title = `meld ${i + 1}: ` + m.label + (m.owner >= 0 ? ` of seat ${m.owner}` : "");
      box.append(make("span", "number", String(i + 1)), cards(m.cards, false)); // "meld 3" in the events
      melds.append(box);
    });
    const hands = $("hands");
    hands.replaceChildren();
    for (const h of z.hands) {
      const box = make("div", "seat");
      box.dataset.seat = String(h.seat);
      if (z.to_move === h.seat) box.classList.add("to-move");
      const bad = faulty(h.seat, at), by = takenBy(h.seat, at);
      if (bad) box.classList.add("faulty");
      let title = `seat ${h.seat}: ${data.bots[h.seat]} \u00b7 ${h.cards.length} cards`;
      if (bad) title += " \u00b7 FAULT";
      if (by) title += ` [${by.replace("builtin:", "")} plays]`;
      if (h.opened) title += " \u00b7 opened";
      box.append(make("h3", "", title));
      box.append(cards(h.cards, viewSeat >= 0 && viewSeat !== h.seat));
      hands.append(box);
    }
    const counters = $("counters");
    counters.replaceChildren();
    for (const c of z.counters) {
      const tr = make("tr");
      tr.append(make("td", "", c.label), make("td", "n", c.value));
      counters.append(tr);
    }
    const events = $("events");
    events.replaceChildren();
    for (const e of s.events) {
      const li = make("li", e.e === "refused" ? "refused" : "");
      if (e.rule) li.append(make("span", "rule", e.rule), " ");
      li.append(e.say);
      events.append(li);
    }
  }

  function go(i) { at = Math.max(0, Math.min(steps.length - 1, i)); render(); }
  function byTurn(dir) {
    let i = at, t = steps[at].turn;
    while (i + dir >= 0 && i + dir < steps.length && steps[i + dir].turn === t) i += dir;
    if (dir > 0) go(i + 1);
    else { i = Math.max(0, i - 1); const t2 = steps[i].turn; while (i > 0 && steps[i - 1].turn === t2) i--; go(i); }
  }
  function roundStart(r) { const i = steps.findIndex((s) => s.round === r); return i < 0 ? at : i; }
  function byRound(dir) {
    const r = steps[at].round;
    if (dir < 0) go(at === roundStart(r) ? roundStart(Math.max(0, r - 1)) : roundStart(r));
    else { const i = steps.findIndex((s) => s.round > r); go(i < 0 ? steps.length - 1 : i); }
  }
  const actions = {
    "prev-round": () => byRound(-1), "prev-turn": () => byTurn(-1), "prev": () => go(at - 1),
    "next": () => go(at + 1), "next-turn": () => byTurn(1), "next-round": () => byRound(1),
  };
  for (const [id, fn] of Object.entries(actions)) $(id).addEventListener("click", fn);
  const jump = $("round-jump");
  for (const r of [...new Set(steps.map((s) => s.round))]) {
    const said = rounds.get(r);
    const option = new Option(`round ${r + 1}` + (said ? `: ${said.short}` : ""), String(r));
    if (said) option.className = said.void ? "void" : said.winners.length ? "won" : "";
    jump.append(option);
  }
  jump.addEventListener("change", () => go(roundStart(Number(jump.value))));
  const view = $("view");
  view.append(new Option("all hands", "-1"));
  data.bots.forEach((b, s) => view.append(new Option(`seat ${s}'s view`, String(s))));
  view.addEventListener("change", () => { viewSeat = Number(view.value); render(); });
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "SELECT") return;
    const keys = {ArrowRight: "next", ArrowLeft: "prev", ArrowDown: "next-turn", ArrowUp: "prev-turn",
                  PageDown: "next-round", PageUp: "prev-round"};
    let name = keys[e.key];
    if (e.shiftKey && (e.key === "ArrowRight" || e.key === "ArrowLeft")) name = e.key === "ArrowRight" ? "next-turn" : "prev-turn";
    if (e.key === "Home") { e.preventDefault(); go(0); return; }
    if (e.key === "End") { e.preventDefault(); go(steps.length - 1); return; }
    if (name) { e.preventDefault(); actions[name](); }
  });
  go(0);
})();
