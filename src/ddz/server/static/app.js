// ddz browser client: plain JavaScript over the version-2 protocol (docs/protocol.md): a snapshot
// (obs) on joining or resuming a table, then deltas (new history entries and changed fields).
// Every piece of text from a message (names above all: a player chooses them) goes into the page
// as text, through el() / textContent, never as HTML; the server's Content-Security-Policy makes
// any innerHTML assignment throw (Trusted Types), so a mistake here fails loudly.
"use strict";

const $ = (id) => document.getElementById(id);
// An element with properties (className, id, textContent, dataset entries, onclick) and children
// (nodes, or strings, which become text nodes).
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "dataset") Object.assign(e.dataset, v); else e[k] = v;
  }
  e.append(...children);
  return e;
}
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
             info: null, offset: 0, selected: new Set(), lastSeq: 0, record: null,
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

// The connection. After a drop the page reconnects by itself, after a wait that doubles from
// 0.5 s to 10 s with jitter (each wait is between half its step and its step, so that pages cut
// off together do not come back together), back to 0.5 s once a server welcomes it again. A
// redirect (cluster mode: the table is on another server process) is followed at once.
const HOME = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
const BACKOFF_MS = [500, 10000];  // the first step, the cap
const CONNECT_TIMEOUT_MS = 10000;
const MAX_MOVES = 5;              // redirects followed for one table (a hand moves once or twice: a stop, a takeover)
const net = {
  url: HOME,        // the URL of the current connection
  last: HOME,       // the URL of the last connection a server welcomed the page on
  welcomed: false,  // this connection has had its welcome: actions can be sent
  failures: 0,      // connections lost or refused since the last welcome
  delays: [],       // the waits (ms) before the reconnections since the last welcome
  timer: null,      // the reconnection waiting
  via: null,        // the redirect this connection followed ("table url"): not followed again on it
  moves: new Map(), // table -> redirects followed for it
};

function conn(text) { $("conn").textContent = text; }

function connect(url) {
  net.timer = null;
  let sock = null;
  try {
    sock = new WebSocket(url);
  } catch (e) {  // a malformed URL
    sock = null;
  }
  // a URL the page may not open: Chromium refuses one its Content-Security-Policy does not
  // allow by closing the socket at once, without an event
  if (sock === null || sock.readyState === WebSocket.CLOSED) {
    ws = null;
    lost(`cannot connect to ${url}`);
    return;
  }
  ws = sock; net.url = url; net.welcomed = false;
  conn(url === HOME ? "connecting…" : `connecting to ${url}…`);
  // a connection that does not open (no answer, or closed without an event) counts as lost
  setTimeout(() => {
    if (sock === ws && sock.readyState !== WebSocket.OPEN) { ws = null; sock.close(); lost(`no answer from ${url}`); }
  }, CONNECT_TIMEOUT_MS);
  // every handler first checks that its socket is still the page's: one left behind (a redirect
  // closes it) must not reconnect, log in or deliver anything
  sock.onopen = () => {
    if (sock !== ws) return;
    conn(url === HOME ? "connected" : `connected to ${url}`);
    // st.name: a login asked for while the connection was down (or the account of the one lost)
    const name = st.name || localStorage.getItem("ddz-name");
    if (name) login(name); else net.failures = 0;  // a stranger: nothing more to wait for
  };
  sock.onclose = (ev) => {
    if (sock !== ws) return;
    ws = null;
    // 4001: this account logged in elsewhere; reconnecting would take it back from there, and so on
    if (ev.code === 4001) { net.welcomed = false; conn("logged in elsewhere: reload the page to play here"); return; }
    lost(ev.code === 1001 ? "the server is stopping" : "connection lost");
  };
  sock.onmessage = (ev) => { if (sock === ws) handle(JSON.parse(ev.data)); };
}

// The connection is gone (or could not be made): the next attempt after the backoff's wait,
// alternately to the server that last welcomed the page and to the page's own (after a
// redirect, the process it went to may be the one that stopped).
function lost(why) {
  net.welcomed = false; net.via = null;
  if (net.failures === 0) net.delays = [];
  const step = Math.min(BACKOFF_MS[1], BACKOFF_MS[0] * 2 ** net.failures);
  const delay = Math.round(step / 2 + Math.random() * step / 2);
  net.failures += 1;
  net.delays.push(delay);
  const url = net.failures % 2 === 1 ? net.last : HOME;
  conn(`${why}: reconnecting in ${(delay / 1000).toFixed(1)} s (attempt ${net.failures})…`);
  if (st.obs && st.info && st.table) render();  // no decision buttons while nothing can be sent
  net.timer = setTimeout(() => connect(url), delay);
}

// redirect: the table (m.table) is played on the server process at m.url: log in there and
// resume. Followed once: not again on the connection it opened (a server that names itself
// would have the page reconnect for ever), and at most MAX_MOVES times for one table.
function follow(m) {
  let url = null;
  try { url = new URL(m.url); } catch (e) { url = null; }
  if (!url || !(url.protocol === "ws:" || url.protocol === "wss:") || (location.protocol === "https:" && url.protocol !== "wss:")) {
    conn(`not following a redirect to ${String(m.url).slice(0, 80)}: not a WebSocket URL this page may open`);
    return;
  }
  const key = `${m.table} ${url.href}`;
  if (net.via === key) return;
  const moves = net.moves.get(m.table) || 0;
  if (moves >= MAX_MOVES) { conn(`not following another redirect for table ${m.table} (${moves} followed)`); return; }
  net.moves.set(m.table, moves + 1);
  const old = ws;
  ws = null;  // its handlers stand down
  if (old) old.close(1000, "redirected");
  if (net.timer !== null) { clearTimeout(net.timer); net.timer = null; }
  $("queue-status").textContent = "";
  if (st.obs && st.info && st.table) render();
  net.via = key;  // (lost() forgets it if the connection cannot be made)
  connect(url.href);
}

// typed: a token the server's operator gave (a lost, expired or logged-out one replaced)
function login(name, typed) {
  st.name = name;
  if (typed) localStorage.setItem("ddz-token:" + name, typed);
  const token = localStorage.getItem("ddz-token:" + name);
  send(token ? { type: "hello", v: VERSION, name, token } : { type: "hello", v: VERSION, name });
}

function forget(name, why) {  // this browser's token for name no longer works
  localStorage.removeItem("ddz-token:" + name);
  localStorage.removeItem("ddz-name");
  Object.assign(st, { name: null, token: null });
  $("who").textContent = ""; $("logout-btn").classList.add("hidden");
  $("error").textContent = why;
  show("login");
}

function handle(m) {
  switch (m.type) {
    case "welcome": {
      Object.assign(net, { welcomed: true, failures: 0, last: net.url });
      if (m.token) localStorage.setItem("ddz-token:" + m.name, m.token);
      localStorage.setItem("ddz-name", m.name);
      st.token = localStorage.getItem("ddz-token:" + m.name);
      $("who").textContent = m.name; $("logout-btn").classList.remove("hidden"); $("error").textContent = "";
      lobby(m.rooms, m.balances);
      $("notices").textContent = m.void_hands.length
        ? `${m.void_hands.length} hand(s) were void (the server stopped during them); no coin moved.` : "";
      if (m.table) {
        if (m.table.table !== st.table) Object.assign(st, { obs: null, lastSeq: 0 });
        // an action sent on the lost connection was applied (the view will show it) or lost
        Object.assign(st, { table: m.table.table, seat: m.table.seat, seatToken: m.table.seat_token, sentAt: null });
        send(st.obs ? { type: "resume", table: st.table, seat_token: st.seatToken, since: st.lastSeq }
                    : { type: "resume", table: st.table, seat_token: st.seatToken });
      } else if (st.table) {
        // the table the page showed is not this server's now: void, ended while the page was
        // away, or (a cluster) played on by another process, whose redirect brings it back
        const gone = st.table;
        Object.assign(st, { table: null, obs: null, lastSeq: 0, sentAt: null });
        if (m.void_hands.includes(gone)) {
          handle({ type: "void", table: gone, message: "the hand could not be resumed after its server stopped: it is void, no coin moved" });
        } else {
          $("notices").textContent = "The table this page showed is not on this server now: its hand ended while the page was away, or it moved.";
          show("lobby");
        }
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
    case "void":
      $("result-text").textContent = m.message; $("leave-btn").classList.add("hidden"); $("record-btn").classList.add("hidden");
      show("result"); break;
    case "left": break;
    case "redirect": follow(m); break;
    case "token": localStorage.setItem("ddz-token:" + st.name, m.token); st.token = m.token; break;
    case "logged_out": forget(st.name, m.message); break;
    case "error":
      if (m.code === "bad_token" || m.code === "token_expired") { forget(st.name, `${m.code}: ${m.message}`); break; }
      if (m.code === "name_taken") { localStorage.removeItem("ddz-name"); st.name = null; show("login"); }
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
    $("balances").replaceChildren(...Object.entries(balances).map(([k, v]) =>
      el("span", { className: "balance", id: "balance-" + k }, `${k}: ${v}  `)));
  }
  if (!rooms) return;
  $("rooms").querySelector("tbody").replaceChildren(...rooms.map((r) => {
    const stakes = r.variant === "classic" ? `base ${r.base} × ${r.initial_multiplier}, rake ${r.rake_percent}%`
      : r.variant === "two_player" ? `${r.kind}${r.coefficient ? " N=" + r.coefficient : ""}` : `1 point = ${r.point_value}`;
    const q = el("button", { className: "queue", onclick: () => send({ type: "join", room: r.name }) }, "Queue");
    const b = el("button", { className: "bots", dataset: { room: r.name },
                             onclick: () => send({ type: "join", room: r.name, bots: true }) }, "Play vs bots");
    return el("tr", {}, el("td", {}, String(r.name)), el("td", {}, String(VARIANT[r.variant])), el("td", {}, stakes),
              el("td", {}, q, b));
  }));
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
  $("badges").replaceChildren(...badges(o, info.variant).map((b) => el("span", { className: "badge" }, b)));
  $("leave-btn").classList.toggle("hidden", o.phase === "OVER" || !st.table);
  $("bomb-limits").textContent = info.bomb_limits
    ? "炸弹上限 bomb limits: " + info.bomb_limits.map((l, i) => `${info.players[i]} ${l === null ? "∞" : l}`).join(" · ") : "";
  // the other seats
  const seats = [];
  for (let s = 0; s < info.players.length; s++) {
    if (s === st.seat) continue;
    const role = o.landlord === null ? "" : s === o.landlord ? " 地主" : " 农民";
    const flags = (o.bots.includes(s) ? " [bot]" : "") + (info.absent.includes(s) ? " (away)" : "");
    const d = el("div", { className: "seat" + (o.current_seat === s ? " to-act" : ""), id: "seat-" + s },
                 el("div", {}, el("b", { className: "player" }, String(info.players[s])), role + flags),
                 el("div", { className: "count" }, `${o.cards_left[s]} cards`));
    const shown = o.shown[String(s)];
    if (shown) d.append(el("div", { className: "shown" }, ...shown.map((c) => cardEl(c, false))));
    seats.push(d);
  }
  $("others").replaceChildren(...seats);
  $("top").textContent = o.top ? `${info.players[o.top[0]]}: ${o.top[1]}` : "—";
  $("kitty").replaceChildren(...(o.kitty ? ["kitty: ", ...o.kitty.map((c) => cardEl(c, false))] : []));
  $("me").className = mine ? "to-act" : "";
  $("my-name").textContent = `${st.name} (you${o.landlord === null ? "" : o.landlord === st.seat ? ", 地主" : ", 农民"})`;
  const hand = $("hand"); hand.replaceChildren();
  for (const c of o.cards) { if (!o.cards.includes(c)) st.selected.delete(c); }
  for (const c of o.cards) {
    const e = cardEl(c, true);
    if (st.selected.has(c)) e.classList.add("selected");
    e.onclick = () => { st.selected.has(c) ? st.selected.delete(c) : st.selected.add(c); e.classList.toggle("selected"); };
    hand.appendChild(e);
  }
  // the legal decisions as buttons; plays from the selected cards
  const acts = $("actions"); acts.replaceChildren();
  // no buttons while an action of this seat is on the wire: an update may show the seat still to
  // act on the decision it has answered (another seat's ESCAPE), docs/protocol.md "When to act"
  // nor while the connection is down (nothing could be sent)
  const legal = st.sentAt === null && net.welcomed ? o.legal_actions : [];
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
  $("history").replaceChildren(...o.history.slice(-12).map(([s, t]) =>
    el("li", {}, `${s === null ? "—" : info.players[s]}: ${t}`)));
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
  $("settlement").querySelector("tbody").replaceChildren(...r.scores.map((sc, i) =>
    el("tr", { id: "settle-" + i }, el("td", {}, String(i)),
       el("td", {}, el("span", { className: "player" }, String(names[i])), i === st.seat ? " (you)" : ""),
       el("td", {}, String(sc)), el("td", { className: "change" }, `${s.changes[i] > 0 ? "+" : ""}${s.changes[i]}`),
       el("td", {}, String(s.coins_after[i])))));
  st.record = m.record;
  $("record-btn").classList.remove("hidden"); $("record-status").textContent = "";
  $("actions").replaceChildren(); $("timer").textContent = ""; $("leave-btn").classList.add("hidden");
  st.table = null;
  show("result");
}

// The record holds every card of the hand, so it is given only to its players: fetched with the
// token in a header (a URL would keep it in logs and histories), then saved from memory.
async function downloadRecord() {
  const path = st.record;
  if (!path || !path.startsWith("/records/")) return;
  $("record-status").textContent = "downloading…";
  try {
    const r = await fetch(path, { headers: { Authorization: "Bearer " + st.token }, cache: "no-store" });
    if (!r.ok) { $("record-status").textContent = `${r.status}: ${(await r.text()).trim()}`; return; }
    const url = URL.createObjectURL(await r.blob());
    const a = el("a", { href: url, download: `ddz-${path.slice("/records/".length)}.json` });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    $("record-status").textContent = "saved";
  } catch (e) {
    $("record-status").textContent = `download failed: ${e}`;
  }
}

setInterval(() => {
  const m = st.msg;
  if (!m || !st.table || m.deadline === null) { if (st.table) $("timer").textContent = ""; return; }
  const left = Math.max(0, m.deadline - (Date.now() / 1000 + st.offset));
  $("timer").textContent = `${left.toFixed(0)} s left`;
}, 250);

$("login-btn").onclick = () => {
  const n = $("name").value.trim(), t = $("token").value.trim();
  $("token").value = "";
  if (n) login(n, t || null);
};
$("logout-btn").onclick = () => send({ type: "logout" });
$("record-btn").onclick = downloadRecord;
$("lobby-btn").onclick = () => { $("result").classList.add("hidden"); send({ type: "rooms" }); send({ type: "balances" }); };
$("leave-btn").onclick = () => { if (st.table) send({ type: "leave", table: st.table, seat_token: st.seatToken }); };
connect(HOME);
