// The simulated table's page: draws the SSD1306 models' display memory as the panels light
// it, sends buttons, cards and lines to tools/play.py over a WebSocket, and shows what the
// server pushes back (never polled).
"use strict";

const BUTTONS = ["STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK", "UNDO"];
const BUTTON_KEYS = {STICK: "s", TWIST: "t", BUY: "b", SPLIT: "p", MINUS: "-", PLUS: "+",
                     OK: "Enter", UNDO: "u"};
const LIT = [190, 228, 255];      // the OLED's pixel colour at full contrast
const DARK = [7, 9, 12];          // an unlit pixel

const $ = (id) => document.getElementById(id);
let ws = null;
let state = null;
const canvases = {};              // display index -> canvas
let bet = "";                     // digits typed for a bet (casino keys)
let heldKeys = {};

// ---------------------------------------------------------------- the panels
// What the panel lights, row by row (0/1), from display memory and the chip's state: the
// same rules as tools/panel.py panel_levels().
function panelLevels(p) {
  const h = p.height, out = new Uint8Array(128 * h);
  if (!p.powered || !p.on) return out;
  const driven = Math.min(h, p.mux + 1);         // COM lines the multiplex ratio drives
  if (p.entire_on) return out.fill(1, 0, 128 * driven);
  const ram = Uint8Array.from(atob(p.ram), (c) => c.charCodeAt(0));
  const inv = p.inverse ? 1 : 0;
  for (let y = 0; y < driven; y++) {
    let ry = p.com_flip ? y : h - 1 - y;
    ry = (ry + p.start_line) % 64;
    const page = (ry >> 3) * 128, bit = 1 << (ry & 7);
    for (let x = 0; x < 128; x++) {
      const rx = p.seg_remap ? x : 127 - x;
      out[y * 128 + x] = ((ram[page + rx] & bit) ? 1 : 0) ^ inv;
    }
  }
  return out;
}

function drawPanel(i, p) {
  const c = canvases[i];
  if (!c) return;
  if (c.height !== p.height) {                  // a 128x32 panel (settings: height = 32)
    c.height = p.height;
    c.style.height = p.height * (+c.dataset.scale) + "px";
  }
  const ctx = c.getContext("2d");
  const img = ctx.createImageData(128, p.height);
  const lv = panelLevels(p);
  const k = 0.35 + 0.65 * (p.contrast / 255);       // contrast: how bright a lit pixel is
  const lit = LIT.map((v) => Math.round(v * k));
  for (let n = 0; n < lv.length; n++) {
    const col = lv[n] ? lit : DARK;
    img.data[4 * n] = col[0]; img.data[4 * n + 1] = col[1];
    img.data[4 * n + 2] = col[2]; img.data[4 * n + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  c.dataset.version = p.version;
  c.dataset.powered = p.powered ? "1" : "0";
}

// The lit pixels of a canvas as a string of 0/1 (the tests compare it with the model).
window.canvasBits = function (i) {
  const c = canvases[i];
  const d = c.getContext("2d").getImageData(0, 0, 128, c.height).data;
  let s = "";
  for (let n = 0; n < d.length; n += 4) s += (d[n] + d[n + 1] + d[n + 2] > 3 * 40) ? "1" : "0";
  return s;
};
window.drawPanel = drawPanel;

function seatPlaces(n) {
  // seat 1 on the dealer's left (the viewer's right), round the lower rim of the table
  const spread = n <= 3 ? [30, 150] : n <= 4 ? [8, 172] : n <= 6 ? [-10, 190] : [-36, 216];
  const out = [];
  for (let k = 0; k < n; k++) {
    const deg = n === 1 ? 90 : spread[0] + (spread[1] - spread[0]) * k / (n - 1);
    const r = deg * Math.PI / 180;
    out.push([50 + 37 * Math.cos(r), 45 + 36 * Math.sin(r)]);
  }
  return out;
}

function buildTable() {
  const felt = $("felt");
  felt.querySelectorAll(".seat").forEach((e) => e.remove());
  const n = state.indices.length - 1;
  // more seats: smaller panels on a taller table, so that none overlaps another
  const scale = n <= 4 ? 1.75 : n <= 6 ? 1.35 : 1.2;
  felt.style.height = (n <= 4 ? 540 : 640) + "px";
  const places = seatPlaces(n);
  state.indices.forEach((i, k) => {
    const div = document.createElement("div");
    const banker = i === 8;
    div.className = "seat" + (banker ? " banker" : "");
    const [x, y] = banker ? [50, 17] : places[k];
    div.style.left = x + "%";
    div.style.top = y + "%";
    const label = document.createElement("div");
    label.className = "label";
    label.textContent = state.labels[k];
    const bezel = document.createElement("div");
    bezel.className = "bezel";
    const c = document.createElement("canvas");
    c.className = "oled";
    c.id = "oled" + i;
    c.width = 128; c.height = 64;
    c.dataset.scale = scale;
    c.style.width = 128 * scale + "px";
    c.style.height = 64 * scale + "px";
    c.title = "display " + i + " (" + state.labels[k] + ")";
    bezel.appendChild(c);
    div.appendChild(label);
    div.appendChild(bezel);
    if (banker) div.appendChild($("shoe-art"));
    felt.appendChild(div);
    canvases[i] = c;
  });
}

// ---------------------------------------------------------------- the controls
function send(action, arg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({do: action, arg: arg || ""}));
}

function buildButtons() {
  const box = $("buttons");
  box.innerHTML = "";
  BUTTONS.forEach((name) => {
    const b = document.createElement("button");
    b.id = "btn-" + name;
    b.innerHTML = name + "<kbd>" + (BUTTON_KEYS[name] === "Enter" ? "Enter / o" : BUTTON_KEYS[name]) + "</kbd>";
    b.title = name + ": click = short press, hold (or shift-click, right-click) = long press";
    let down = false;
    b.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      if (ev.button === 2 || ev.shiftKey) { send("long", name); flash(b); return; }
      down = true; b.classList.add("held"); send("down", name);
    });
    const up = () => { if (down) { down = false; b.classList.remove("held"); send("up", name); } };
    b.addEventListener("pointerup", up);
    b.addEventListener("pointerleave", up);
    b.addEventListener("contextmenu", (ev) => ev.preventDefault());
    box.appendChild(b);
  });
}

function flash(b) {
  b.classList.add("held");
  setTimeout(() => b.classList.remove("held"), 250);
}

function keyHelp() {
  let html = "Keys: " + state.keys.map(([k, , , what]) => "<kbd>" + k + "</kbd> " + what.split(" (")[0]).join(" &middot; ");
  html += " &middot; <kbd>Enter</kbd> OK &middot; hold a key or type a capital for a long press &middot; <kbd>/</kbd> the serial line";
  if (state.casino) {
    html += "<br>Casino: " + state.casino_keys.map(([k, what]) => "<kbd>" + k + "</kbd> " + what).join(" &middot; ");
    html += ' &middot; bet: <span id="bet"></span>';
  }
  $("keyhelp").innerHTML = html;
}

function buildPicker() {
  const box = $("picker");
  box.innerHTML = "";
  // rows by suit, columns by rank: AC 2C .. KC / AD .. / AH .. / AS ..
  for (let s = 0; s < 4; s++) {
    for (let r = 0; r < 13; r++) {
      const code = r * 4 + s;
      const b = document.createElement("button");
      const name = state.cards[code];
      b.textContent = name;
      b.dataset.card = name;
      b.id = "card-" + name;
      if (s === 1 || s === 2) b.classList.add("red");
      b.title = "deal " + name + " (the firmware refuses a card that cannot be at the top of the shoe)";
      // blurred at once: a focus ring would tell onlookers which card was picked
      b.addEventListener("click", () => { send("deal", name); b.blur(); });
      box.appendChild(b);
    }
  }
}

function keydown(ev) {
  if (!state) return;                              // not connected yet
  const inLine = document.activeElement === $("line");
  if (inLine) {
    if (ev.key === "Escape") $("line").blur();
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const k = ev.key;
  if (k === "/") { ev.preventDefault(); $("line").focus(); return; }
  if (state.casino) {
    if (k === " ") { ev.preventDefault(); send("same"); return; }
    if (/^[0-9]$/.test(k)) { bet = (bet + k).slice(-3); showBet(); return; }
    if (k === "Backspace" && bet) { bet = bet.slice(0, -1); showBet(); return; }
    if (k === "Escape") { if (bet) { bet = ""; showBet(); } else send("leave"); return; }
    if (k === "Enter" && bet) { send("bet", bet); bet = ""; showBet(); return; }
  }
  if (ev.repeat) { ev.preventDefault(); return; }
  const key = (k === "Enter") ? "o" : (k === "=") ? "+" : k;
  const lower = key.length === 1 ? key.toLowerCase() : key;
  const entry = state.keys.find(([kk]) => kk === lower);
  if (!entry) return;
  ev.preventDefault();
  const [, action, arg] = entry;
  const long = key !== lower;                          // a capital letter
  if (action === "press") {
    const b = $("btn-" + arg);
    if (long) { send("long", arg); flash(b); return; }
    // by the physical key: "+" may come up as "=" once shift is released first
    heldKeys[ev.code || lower] = arg;
    b.classList.add("held");
    send("down", arg);
  } else {
    send(action, arg);
  }
}

function keyup(ev) {
  const id = ev.code || ev.key;
  const arg = heldKeys[id];
  if (arg) {
    delete heldKeys[id];
    $("btn-" + arg).classList.remove("held");
    send("up", arg);
  }
}

function showBet() {
  const e = $("bet");
  if (e) e.textContent = bet ? bet + " (Enter places it)" : "";
}

// ---------------------------------------------------------------- the side panels
function logClass(line) {
  if (line.startsWith("ok")) return "ok";
  if (line.startsWith("error")) return "err";
  if (line.startsWith("!")) return "warn";
  if (line.startsWith(">")) return "prompt";
  if (line.startsWith("<")) return "mine";
  return "info";
}

function addLog(lines) {
  const box = $("log");
  const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
  for (const line of lines) {
    const div = document.createElement("div");
    div.className = logClass(line);
    div.textContent = line;
    box.appendChild(div);
  }
  while (box.childNodes.length > 1500) box.removeChild(box.firstChild);
  if (atEnd) box.scrollTop = box.scrollHeight;
}

function signed(v) { return (v > 0 ? "+" : "") + v; }

function showLedger(led) {
  const box = $("ledger");
  if (!led) { box.textContent = "no events yet"; return; }
  if (led.error) { box.textContent = led.error; return; }
  const seats = Object.keys(led.balances);
  let h = "<table><tr><th>deal</th>" + seats.map((s) => "<th>S" + s + "</th>").join("") + "</tr>";
  for (const d of led.deals.slice(-6)) {
    h += "<tr><td>" + d.number + (d.void ? " void" : d.counted ? "" : " (not counted)") + " B" + d.banker + "</td>";
    h += seats.map((s) => { const v = d.net[s] || 0; return "<td class=" + (v > 0 ? "pos" : v < 0 ? "neg" : "") + ">" + signed(v) + "</td>"; }).join("") + "</tr>";
  }
  h += "<tr class=total><td>balance</td>" + seats.map((s) => { const v = led.balances[s]; return "<td class=" + (v > 0 ? "pos" : v < 0 ? "neg" : "") + ">" + signed(v) + "</td>"; }).join("") + "</tr></table>";
  // seat 0 is the house (casino) or, before the cut for the bank, nobody yet (seats are 1-8)
  const banker = led.banker ? "banker next: seat " + led.banker :
    String(led.rules).startsWith("casino") ? "the house deals" : "banker: the cut decides";
  h += "<div>" + banker + (led.kitty ? " &middot; kitty " + led.kitty : "") +
       " &middot; deals " + led.deals.length + (led.finished ? " &middot; <b>finished</b>, winners " + led.winners.join(", ") : "") + "</div>";
  box.innerHTML = h;
}

function showDeal(lines) {
  const ol = $("events");
  ol.innerHTML = "";
  for (const line of lines || []) {
    const li = document.createElement("li");
    li.textContent = line.replace(/^(ok|\*) /, "");
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

function showShoe(shoe) {
  $("shoeinfo").textContent = shoe.left + " cards in the top layer" + (shoe.due ? " \u00b7 a card is due" : "");
  $("auto").checked = shoe.auto;
  $("note").textContent = shoe.note || "";
  $("shoe-art").classList.toggle("reading", !!shoe.pending);
}

function showPower(on) {
  const lamp = $("power");
  lamp.textContent = on ? "\u25cf power on" : "\u25cb power off";
  lamp.className = "lamp " + (on ? "on" : "off");
  $("plug").disabled = !on;
  $("poweron").disabled = on;
  document.body.dataset.powered = on ? "1" : "0";
}

// The shoe's buzzer (firmware/hardware/buzzer.py): each tone the piezo model heard, played with
// WebAudio at the firmware's pitch and length. A page may only make sound once it has been
// clicked or typed in (the browsers' autoplay rule): tones before that are not played.
let audio = null;
let toneSeq = -1;
let toneBoots = -1;
function audioReady() {
  if (audio === null && (window.AudioContext || window.webkitAudioContext)) {
    audio = new (window.AudioContext || window.webkitAudioContext)();
  }
}
function beep(kind, at) {
  const spec = state.tone_kinds && state.tone_kinds[kind];
  if (!spec || !audio || !$("sound").checked) return;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = "square";
  osc.frequency.value = spec[0];
  gain.gain.value = 0.04;
  osc.connect(gain).connect(audio.destination);
  osc.start(at);
  osc.stop(at + spec[1] / 1000);
}
function playTones(t) {
  if (!t) return;
  const fresh = t.boots !== toneBoots ? t.seq : t.seq - toneSeq;   // a boot starts again
  if (toneSeq >= 0 && fresh > 0) {
    const now = audio ? audio.currentTime : 0;
    const last = t.last.slice(-Math.min(fresh, t.last.length));
    last.forEach(([ms, kind], k) => beep(kind, now + 0.02 * k));
    document.body.dataset.lastTone = last[last.length - 1][1];
  }
  toneSeq = t.seq;
  toneBoots = t.boots;
  document.body.dataset.tones = t.seq;
}

function apply(m) {
  if (m.type === "refused") { $("note").textContent = m.why; return; }
  if (m.type === "full") {
    state = m;
    $("rules").textContent = m.preset + ", " + m.seats + " seat" + (m.seats > 1 ? "s" : "");
    buildTable(); buildButtons(); buildPicker(); keyHelp();
    $("log").innerHTML = "";
    addLog(m.log);
  } else {
    // a page that connected between two messages already has some of these lines
    const first = m.log_seq - m.log.length;
    addLog(m.log.slice(Math.max(0, state.log_seq - first)));
    Object.assign(state, {shoe: m.shoe, powered: m.powered, boots: m.boots, prompt: m.prompt,
                          ledger: m.ledger, deal: m.deal, log_seq: m.log_seq});
    Object.assign(state.panels, m.panels);
  }
  for (const [i, p] of Object.entries(m.panels)) drawPanel(+i, p);
  $("prompt").textContent = m.powered ? (m.prompt || "") : "no power";
  showPower(m.powered);
  showShoe(m.shoe);
  showLedger(m.ledger);
  showDeal(m.deal);
  playTones(m.tones);
  document.body.dataset.logSeq = m.log_seq;
  document.body.dataset.boots = m.boots;
}

function connect() {
  ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onmessage = (ev) => apply(JSON.parse(ev.data));
  ws.onclose = () => {
    const lamp = $("power");
    lamp.textContent = "disconnected: is tools/play.py still running?";
    lamp.className = "lamp off";
    setTimeout(connect, 2000);
  };
}

$("plug").addEventListener("click", () => send("plug"));
$("poweron").addEventListener("click", () => send("power"));
$("deal").addEventListener("click", () => send("deal"));
$("auto").addEventListener("change", (ev) => send("auto", ev.target.checked ? "on" : "off"));
document.querySelectorAll("[data-anomaly]").forEach((b) =>
  b.addEventListener("click", () => send("anomaly", b.dataset.anomaly)));
$("lineform").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const v = $("line").value.trim();
  if (v) send("line", v);
  $("line").value = "";
});
document.addEventListener("pointerdown", audioReady);
document.addEventListener("keydown", audioReady);
document.addEventListener("keydown", keydown);
document.addEventListener("keyup", keyup);
window.addEventListener("blur", () => {
  for (const k of Object.keys(heldKeys)) keyup({code: k});
});
connect();
