// ddz browser client: plain JavaScript over the version-2 protocol (docs/protocol.md): a snapshot
// (obs) on joining or resuming a table, then deltas (new history entries and changed fields).
"use strict";

const $ = (id) => document.getElementById(id);
const VARIANT = { classic: "CLASSIC3", two_player: "TWOP", bengbu: "BENGBU4" };
const SUIT = { s: "♠", h: "♥", c: "♣", d: "♦" };
const LABEL = {  // decision tokens (docs/rules.md §1) as buttons
  CALL: "叫地主 Call", NO_CALL: "不叫 No call", ROB: "抢地主 Rob", NO_ROB: "不抢 No rob", SHOW: "明牌 Show",
  NO_SHOW: "不明牌 No show", SHOW_START: "明牌开始 Show start", NORMAL_START: "普通开始 Normal start",
  FANSHEN: "翻身 Fanshen", NO_FANSHEN: "不翻身 No fanshen", YAPO: "压迫 Yapo", NO_YAPO: "不压迫 No yapo",
  BID1: "1分", BID2: "2分", BID3: "3分", GRAB: "抢牌 Grab", OPEN: "明打 Open", CLOSED: "暗打 Closed", PASS: "不要 Pass",
};

let ws = null;
const st = { name: null, token: null, table: null, seat: null, seatToken: null, obs: null, msg: null,
             info: null, offset: 0, selected: new Set(), lastSeq: 0,
             sentAt: null };  // the history length when this seat's action was sent, until it is answered
const VERSION = 2;

function send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); }
function show(id) { for (const p of ["login", "lobby", "table", "result"]) $(p).classList.toggle("hidden", p !== id && !(id === "result" && p === "table")); }

function cardText(name) {
  const second = name.endsWith("'") ? "′" : "";
  const n = name.replace("'", "");
  if (n === "B") return "小王" + second;
  if (n === "R") return "大王" + second;
  return (n[0] === "T" ? "10" : n[0]) + SUIT[n[1]] + second;
}
function cardEl(name, clickable) {
  const e = document.createElement(clickable ? "button" : "span");
  e.className = "card" + (/[hd]|^R/.test(name.replace("'", "").slice(-1)) || name[0] === "R" ? " red" : "");
  e.textContent = cardText(name);
  e.dataset.card = name;
  return e;
}

function connect() {
  ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onopen = () => {
    $("conn").textContent = "connected";
    const name = localStorage.getItem("ddz-name");
    if (name) login(name);
  };
  ws.onclose = (ev) => {
    // 4001: this account logged in elsewhere; reconnecting would take it back from there, and so on
    if (ev.code === 4001) { $("conn").textContent = "logged in elsewhere: reload the page to play here"; return; }
    $("conn").textContent = "disconnected — reconnecting…"; setTimeout(connect, 1000);
  };
  ws.onmessage = (ev) => handle(JSON.parse(ev.data));
}

function login(name) {
  st.name = name;
  const token = localStorage.getItem("ddz-token:" + name);
  send(token ? { type: "hello", v: VERSION, name, token } : { type: "hello", v: VERSION, name });
}

function handle(m) {
  switch (m.type) {
    case "welcome": {
      if (m.token) localStorage.setItem("ddz-token:" + m.name, m.token);
      localStorage.setItem("ddz-name", m.name);
      st.token = localStorage.getItem("ddz-token:" + m.name);
      $("who").textContent = m.name;
      lobby(m.rooms, m.balances);
      $("notices").textContent = m.void_hands.length
        ? `${m.void_hands.length} hand(s) were void (the server stopped during them); no coin moved.` : "";
      if (m.table) {
        if (m.table.table !== st.table) Object.assign(st, { obs: null, lastSeq: 0 });
        // an action sent on the lost connection was applied (the view will show it) or lost
        Object.assign(st, { table: m.table.table, seat: m.table.seat, seatToken: m.table.seat_token, sentAt: null });
        send(st.obs ? { type: "resume", table: st.table, seat_token: st.seatToken, since: st.lastSeq }
                    : { type: "resume", table: st.table, seat_token: st.seatToken });
      }
      break;
    }
    case "rooms": lobby(m.rooms, null); break;
    case "balances": lobby(null, m.balances); break;
    case "queued": $("queue-status").textContent = `waiting for players in ${m.room}…`; break;
    case "left_queue": $("queue-status").textContent = ""; break;
    case "matched":
      Object.assign(st, { table: m.table, seat: m.seat, seatToken: m.seat_token, selected: new Set(),
                          obs: null, info: null, lastSeq: 0, sentAt: null });
      $("queue-status").textContent = "";
      $("result").classList.add("hidden");
      break;
    case "obs": case "delta": update(m); break;
    case "illegal": $("illegal").textContent = `${m.code}: ${m.message}`; st.sentAt = null; if (st.obs) render(); break;
    case "result": result(m); break;
    case "void": $("result-text").textContent = m.message; show("result"); break;
    case "left": break;
    case "error":
      if (m.code === "name_taken" || m.code === "bad_token") { localStorage.removeItem("ddz-name"); show("login"); }
      $("error").textContent = `${m.code}: ${m.message}`;
      break;
  }
}

// The seat's observation after a snapshot or a delta (the history cut to "from" entries and
// extended by "events", each field of "set" replaced); a delta that does not fit asks for a snapshot.
function update(m) {
  if (m.table !== st.table || m.seat !== st.seat) return;
  if (m.type === "obs") {
    st.obs = m.obs;
  } else if (!st.obs || m.from > st.obs.history.length) {
    st.obs = null;
    send({ type: "resume", table: st.table, seat_token: st.seatToken });
    return;
  } else {
    st.obs.history.length = m.from;
    st.obs.history.push(...m.events);
    Object.assign(st.obs, m.set);
  }
  if (m.table_info) st.info = m.table_info;
  // the action sent is answered once the history shows an action of this seat after it
  if (st.sentAt !== null && st.obs.history.slice(st.sentAt).some(([s, t]) => s === st.seat && t !== "ESCAPE")) {
    st.sentAt = null;
  }
  st.msg = m; st.lastSeq = m.seq; st.offset = m.now - Date.now() / 1000;
  render();
}

function lobby(rooms, balances) {
  if (balances) {
    st.balances = balances;
    $("balances").innerHTML = "";
    for (const [k, v] of Object.entries(balances)) {
      const s = document.createElement("span");
      s.className = "balance"; s.id = "balance-" + k; s.textContent = `${k}: ${v}  `;
      $("balances").appendChild(s);
    }
  }
  if (!rooms) return;
  const tb = $("rooms").querySelector("tbody");
  tb.innerHTML = "";
  for (const r of rooms) {
    const tr = document.createElement("tr");
    const stakes = r.variant === "classic" ? `base ${r.base} × ${r.initial_multiplier}, rake ${r.rake_percent}%`
      : r.variant === "two_player" ? `${r.kind}${r.coefficient ? " N=" + r.coefficient : ""}` : `1 point = ${r.point_value}`;
    tr.innerHTML = `<td>${r.name}</td><td>${VARIANT[r.variant]}</td><td>${stakes}</td><td></td>`;
    const q = document.createElement("button"); q.textContent = "Queue"; q.className = "queue";
    q.onclick = () => send({ type: "join", room: r.name });
    const b = document.createElement("button"); b.textContent = "Play vs bots"; b.className = "bots";
    b.dataset.room = r.name;
    b.onclick = () => send({ type: "join", room: r.name, bots: true });
    tr.lastChild.append(q, b);
    tb.appendChild(tr);
  }
  if (!st.table) show("lobby");
}

function badges(obs, variant) {
  const f = obs.factors, out = [];
  if (variant === "classic") {
    if (f.rob > 1) out.push(`抢地主×${f.rob}`);
    if (f.show > 1) out.push(`明牌×${f.show}`);
    if (f.kitty > 1) out.push(`底牌×${f.kitty}`);
    if (f.bomb > 1) out.push(`炸弹×${f.bomb}`);
    if (f.spring > 1) out.push(`春天×${f.spring}`);
  } else if (variant === "two_player") {
    if (f.show_start > 1) out.push(`明牌×${f.show_start}`);
    if (f.fanshen === 2) out.push("翻身×2");
    if (f.fanshen === 4) out.push("压迫×4");
    if (f.bomb > 1) out.push(`炸弹×${f.bomb}`);
    if (f.spring > 1) out.push(`春天×${f.spring}`);
  } else {
    out.push(`底分 ${f.base}`);
    if (obs.landlord !== null) out.push(f.open ? "明打" : "暗打");
  }
  return out;
}

function render() {
  const o = st.obs, info = st.info;
  if ($("result").classList.contains("hidden")) show("table");
  $("room-name").textContent = `${info.room} (${VARIANT[info.variant]})`;
  $("phase").textContent = o.phase;
  const mine = o.current_seat === st.seat;
  $("turn").textContent = o.current_seat === null ? "" : mine ? "your turn" : `${info.players[o.current_seat]}'s turn`;
  $("multiplier").textContent = info.variant === "bengbu" ? "" : `×${o.multiplier}` + (info.unit ? ` (unit ${info.unit * o.multiplier})` : "");
  $("factors").textContent = Object.entries(o.factors).map(([k, v]) => `${k} ${v}`).join(" · ");
  $("badges").innerHTML = "";
  for (const b of badges(o, info.variant)) {
    const s = document.createElement("span"); s.className = "badge"; s.textContent = b; $("badges").appendChild(s);
  }
  $("bomb-limits").textContent = info.bomb_limits
    ? "炸弹上限 bomb limits: " + info.bomb_limits.map((l, i) => `${info.players[i]} ${l === null ? "∞" : l}`).join(" · ") : "";
  // the other seats
  const others = $("others"); others.innerHTML = "";
  for (let s = 0; s < info.players.length; s++) {
    if (s === st.seat) continue;
    const d = document.createElement("div");
    d.className = "seat" + (o.current_seat === s ? " to-act" : ""); d.id = "seat-" + s;
    const role = o.landlord === null ? "" : s === o.landlord ? " 地主" : " 农民";
    const flags = (o.bots.includes(s) ? " [bot]" : "") + (info.absent.includes(s) ? " (away)" : "");
    d.innerHTML = `<div><b>${info.players[s]}</b>${role}${flags}</div><div class="count">${o.cards_left[s]} cards</div>`;
    const shown = o.shown[String(s)];
    if (shown) { const h = document.createElement("div"); h.className = "shown"; for (const c of shown) h.appendChild(cardEl(c, false)); d.appendChild(h); }
    others.appendChild(d);
  }
  $("top").textContent = o.top ? `${info.players[o.top[0]]}: ${o.top[1]}` : "—";
  $("kitty").innerHTML = "";
  if (o.kitty) { $("kitty").append("kitty: "); for (const c of o.kitty) $("kitty").appendChild(cardEl(c, false)); }
  $("me").className = mine ? "to-act" : "";
  $("my-name").textContent = `${st.name} (you${o.landlord === null ? "" : o.landlord === st.seat ? ", 地主" : ", 农民"})`;
  const hand = $("hand"); hand.innerHTML = "";
  for (const c of o.cards) { if (!o.cards.includes(c)) st.selected.delete(c); }
  for (const c of o.cards) {
    const e = cardEl(c, true);
    if (st.selected.has(c)) e.classList.add("selected");
    e.onclick = () => { st.selected.has(c) ? st.selected.delete(c) : st.selected.add(c); e.classList.toggle("selected"); };
    hand.appendChild(e);
  }
  // the legal decisions as buttons; plays from the selected cards
  const acts = $("actions"); acts.innerHTML = "";
  // no buttons while an action of this seat is on the wire: an update may show the seat still to
  // act on the decision it has answered (another seat's ESCAPE), docs/protocol.md "When to act"
  const legal = st.sentAt === null ? o.legal_actions : [];
  acts.dataset.legal = JSON.stringify(legal);
  const plays = legal.filter((a) => a.startsWith("PLAY "));
  for (const a of legal.filter((a) => !a.startsWith("PLAY "))) {
    const b = document.createElement("button"); b.textContent = LABEL[a] || a; b.dataset.action = a;
    b.onclick = () => act(a); acts.appendChild(b);
  }
  if (plays.length) {
    const b = document.createElement("button"); b.id = "play-btn"; b.textContent = "出牌 Play selected";
    b.onclick = () => { if (st.selected.size) act("PLAY " + [...st.selected].join(" ")); };
    acts.appendChild(b);
  }
  const hl = $("history"); hl.innerHTML = "";
  for (const [s, t] of o.history.slice(-12)) {
    const li = document.createElement("li"); li.textContent = `${s === null ? "—" : info.players[s]}: ${t}`; hl.appendChild(li);
  }
}

function act(a) {
  $("illegal").textContent = "";
  if (a.startsWith("PLAY ")) st.selected = new Set();
  st.sentAt = st.obs.history.length;
  send({ type: "act", table: st.table, seat_token: st.seatToken, seq: st.lastSeq, action: a });
  render();
}

function result(m) {
  const r = m.result, s = m.settlement, info = st.info;
  const names = info ? info.players : r.scores.map((_, i) => `seat ${i}`);
  const who = r.kind === "escape" ? "escape" : r.kind === "special" ? "special hand (天炸/天尊)"
    : r.winner_side === null ? r.kind : `${r.winner_side} win` + (r.spring ? " · 春天 spring" : "") + (r.anti_spring ? " · 反春 anti-spring" : "");
  $("result-text").textContent = `${who} — multiplier ${r.multiplier}, unit ${s.unit}`;
  const tb = $("settlement").querySelector("tbody"); tb.innerHTML = "";
  r.scores.forEach((sc, i) => {
    const tr = document.createElement("tr"); tr.id = "settle-" + i;
    tr.innerHTML = `<td>${i}</td><td>${names[i]}${i === st.seat ? " (you)" : ""}</td><td>${sc}</td>` +
      `<td class="change">${s.changes[i] > 0 ? "+" : ""}${s.changes[i]}</td><td>${s.coins_after[i]}</td>`;
    tb.appendChild(tr);
  });
  $("record-link").href = `${m.record}?name=${encodeURIComponent(st.name)}&token=${encodeURIComponent(st.token)}`;
  $("actions").innerHTML = ""; $("timer").textContent = "";
  st.table = null;
  show("result");
}

setInterval(() => {
  const m = st.msg;
  if (!m || !st.table || m.deadline === null) { if (st.table) $("timer").textContent = ""; return; }
  const left = Math.max(0, m.deadline - (Date.now() / 1000 + st.offset));
  $("timer").textContent = `${left.toFixed(0)} s left`;
}, 250);

$("login-btn").onclick = () => { const n = $("name").value.trim(); if (n) login(n); };
$("lobby-btn").onclick = () => { $("result").classList.add("hidden"); send({ type: "rooms" }); send({ type: "balances" }); };
$("leave-btn").onclick = () => { if (st.table) send({ type: "leave", table: st.table, seat_token: st.seatToken }); };
connect();
