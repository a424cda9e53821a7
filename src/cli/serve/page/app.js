// charioteer's page: a board on which a player sets up a chariot charge, checked by the
// server's validator as they edit, and run on the server's engine. Plain modern JS, no
// build step. The scenario is held as the JSON form of its TOML file; the server checks
// it and writes it back as TOML.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const state = {
  library: null,     // profiles, examples, default scenario
  scenario: null,    // the scenario as JSON (the fields of its TOML file)
  check: null,       // the last answer of /api/validate for a valid scenario
  system: "mesbg",
  selected: null,    // {kind: "chariot"} | {kind: "formation", index} | {kind: "terrain", index}
  job: null,         // id of the job playing
  a: null,           // {toml, title}: the set-up kept as A
  checking: 0,       // number of the latest check asked for (older answers are dropped)
  view: null,        // the board's viewBox [x, y, w, h] in SVG units
};

// One run at a time per client: the server knows this page by this id.
const client = (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2)).slice(0, 36);

async function api(method, path, body, json) {
  const headers = { "X-Charioteer-Client": client };
  if (body !== undefined) headers["Content-Type"] = json ? "application/json" : "text/plain; charset=utf-8";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : (json ? JSON.stringify(body) : body) });
  let answer;
  try { answer = await response.json(); } catch { answer = { error: `the server answered ${response.status} without JSON` }; }
  return { ok: response.ok, status: response.status, answer };
}

// ---------- formatting ----------
const pct = (p, digits = 2) => `${(100 * p).toFixed(digits)}%`;
const num = (x, digits = 4) => Number(x).toFixed(digits);
const grouped = (n) => Number(n).toLocaleString("en-GB");
function esc(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }
function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
const pts = (points) => points.map(([x, y]) => `${x.toFixed(3)},${(-y).toFixed(3)}`).join(" ");
// White (never slain) to deep red (always slain).
function slainColour(p) {
  const t = Math.max(0, Math.min(1, p));
  const mix = (a, b) => Math.round(a + (b - a) * t);
  return `rgb(${mix(255, 140)},${mix(255, 20)},${mix(255, 20)})`;
}

// ---------- checking ----------
// One check at a time: edits made while one is on its way wait, and only the latest is
// sent when it returns (a best-path search can take seconds; the server is not asked to
// check set-ups the player has already changed).
let checkInFlight = null;
let pendingCheck = null;
async function check(source) {
  pendingCheck = source;
  if (checkInFlight) return checkInFlight;
  checkInFlight = (async () => {
    let ok = false;
    while (pendingCheck) {
      const next = pendingCheck;
      pendingCheck = null;
      ok = await checkNow(next);
    }
    checkInFlight = null;
    return ok;
  })();
  return checkInFlight;
}

// Sends the scenario (its JSON form, or TOML text) to the validator; draws the answer.
async function checkNow(source) {
  const ticket = ++state.checking;
  $("status").textContent = source.json && source.json.charge && source.json.charge.plan === "best"
    ? "checking… (searching for the best path takes a few seconds)" : "checking…";
  $("status").className = "";
  const { ok, answer } = source.text !== undefined
    ? await api("POST", "/api/validate", source.text, false)
    : await api("POST", "/api/validate", source.json, true);
  if (ticket !== state.checking) return; // a later edit's check is on its way
  if (!ok) {
    if (source.text !== undefined) {
      showProblems(answer);
      $("toml").value = source.text;
      return false;
    }
    // A rejected edit is undone: the set-up goes back to the last one the server accepted,
    // and the player is told which field was refused.
    rollBack(answer);
    return false;
  }
  state.check = answer;
  state.scenario = structuredClone(answer.scenario); // its own copy: the accepted one stays as it was
  state.system = answer.system;
  remember(answer.toml);
  // The file box follows the board, but never over edits the player has not applied.
  if (source.text !== undefined) {
    $("toml").value = source.text;
    tomlKept(false);
    state.file = { text: source.text, scenario: answer.scenario };
  } else if (tomlEdited()) tomlKept(true);
  else {
    $("toml").value = answer.toml;
    keepFileForm(answer.scenario, answer.toml);
  }
  markStale();
  for (const key of ["title", "question"]) {
    if (document.activeElement !== $(key)) $(key).value = state.scenario[key] || "";
  }
  if (!$("seed").dataset.touched) $("seed").value = answer.seed;
  showCheck(answer);
  draw();
  fillSide();
  return true;
}

// Puts the last accepted set-up back after a refused edit, keeping the refusal on screen.
function rollBack(answer) {
  if (!state.check) { showProblems(answer); return; }
  state.scenario = structuredClone(state.check.scenario);
  if (!tomlEdited()) $("toml").value = state.check.toml;
  draw();
  fillSide();
  refused(answer);
}

// The refusal of an edit that was not applied: what was wrong, field by field; the set-up
// on the board is the last accepted one, so it can still be run.
function refused(answer) {
  showProblems(answer);
  $("status").textContent = `Not applied, the set-up is as it was: ${answer.error || "not valid"}`;
  $("run").disabled = state.job !== null;
  $("compare").disabled = state.job !== null || !state.a;
}

function showProblems(answer) {
  $("status").textContent = answer.error || "not valid";
  $("status").className = "bad";
  const list = $("problems");
  list.innerHTML = "";
  for (const p of answer.problems || []) {
    const li = document.createElement("li");
    li.className = "error";
    li.textContent = p.text || p.message;
    list.appendChild(li);
  }
  $("run").disabled = true;
  $("compare").disabled = true;
}

function showCheck(answer) {
  const plan = answer.board && answer.board.plan;
  let line = `${answer.title}: ${answer.summary}`;
  if (plan) {
    const pivots = plan.pivots.map((p) => `${p >= 0 ? "+" : ""}${p.toFixed(0)}°`).join(", ");
    line += `; path ${plan.path_length.toFixed(1)}" with pivots ${pivots}, ${plan.contacts.length} contact group${plan.contacts.length === 1 ? "" : "s"}`;
    if (plan.obstacle) line += `, ends at ${plan.obstacle}`;
  }
  $("status").textContent = line;
  $("status").className = "ok";
  const list = $("problems");
  list.innerHTML = "";
  for (const w of answer.warnings) {
    const li = document.createElement("li");
    li.className = "warning";
    li.textContent = `warning: ${w.text}`;
    list.appendChild(li);
  }
  for (const d of answer.details || []) {
    const li = document.createElement("li");
    li.textContent = d;
    list.appendChild(li);
  }
  $("run").disabled = state.job !== null;
  $("compare").disabled = state.job !== null || !state.a;
}

// An edit of the scenario's JSON form: applied, then checked.
// The change sees the new set-up as the page's own (a piece it adds can be selected at
// once); if it fails, the set-up is put back.
function edit(change) {
  const before = state.scenario;
  const next = structuredClone(before);
  state.scenario = next;
  try {
    change(next);
  } catch (e) {
    state.scenario = before;
    throw e;
  }
  return check({ json: next });
}

// ---------- the board ----------
function draw() {
  const isMesbg = state.system === "mesbg" && state.check && state.check.board.kind === "geometry";
  document.querySelectorAll(".mesbg-only").forEach((n) => { n.hidden = !isMesbg; });
  // Formations and terrain can be added to a turn too (drawn by the server, edited in TOML).
  $("board-tools").hidden = state.system !== "mesbg";
  showTurnTools();
  $("board").style.display = isMesbg ? "" : "none";
  $("board-svg").hidden = isMesbg;
  $("board-hint").textContent = isMesbg
    ? $("board-hint").dataset.mesbg
    : state.system === "mesbg"
      ? "A turn of several chariots is drawn by the server: every path, numbered as listed, and each model's chance to be slain. Add or remove chariots with the buttons above; move them or change their paths in the scenario file below."
      : "A BATTLESYSTEM board is drawn by the server (the units, and where a rout goes); edit it in the scenario file below.";
  if (!isMesbg) {
    $("board-svg").innerHTML = state.check ? state.check.board.svg : "";
    $("stops").innerHTML = "";
    return;
  }
  drawBoard(state.check.board.picture);
  drawStops(state.check.board.picture);
}

function drawBoard(picture) {
  const svg = $("board");
  svg.innerHTML = "";
  const [x0, y0, x1, y1] = picture.bounds;
  // Keep the view while it still holds everything, so the board does not jump as one edits.
  const want = [x0, -y1, x1 - x0, y1 - y0];
  const v = state.view;
  if (!v || want[0] < v[0] || want[1] < v[1] || want[0] + want[2] > v[0] + v[2] || want[1] + want[3] > v[1] + v[3]
      || want[2] * want[3] < 0.3 * v[2] * v[3]) {
    state.view = want;
  }
  const [vx, vy, vw, vh] = state.view;
  svg.setAttribute("viewBox", `${vx} ${vy} ${vw} ${vh}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const unit = Math.max(vw, vh) / 60; // a readable size for text and lines, in inches

  // Grid: every inch faint, every 6 inches stronger.
  const grid = el("g", { stroke: "#e4e1d6", "stroke-width": unit * 0.06 });
  // Drawn well past the view: the board's box is wider or taller than the view it shows.
  const [gx0, gx1, gy0, gy1] = [vx - 2 * vw, vx + 3 * vw, vy - 2 * vh, vy + 3 * vh];
  for (let x = Math.floor(gx0); x <= gx1; x++) grid.appendChild(el("line", { x1: x, y1: gy0, x2: x, y2: gy1, "stroke-width": unit * (x % 6 === 0 ? 0.14 : 0.05) }));
  for (let y = Math.floor(gy0); y <= gy1; y++) grid.appendChild(el("line", { x1: gx0, y1: y, x2: gx1, y2: y, "stroke-width": unit * (y % 6 === 0 ? 0.14 : 0.05) }));
  svg.appendChild(grid);

  // Terrain.
  picture.terrain.forEach((t, i) => {
    const g = el("g", { class: "draggable terrain", "data-kind": "terrain", "data-index": i });
    if (t.kind === "difficult") {
      g.appendChild(el("polygon", { class: "outline", points: pts(t.points), fill: "#cfe3c2", stroke: "#5d7f47", "stroke-width": unit * 0.12 }));
    } else {
      const [a, b] = t.points;
      g.appendChild(el("line", { x1: a[0], y1: -a[1], x2: b[0], y2: -b[1], stroke: "transparent", "stroke-width": unit * 1.2 }));
      g.appendChild(el("line", { class: "outline", x1: a[0], y1: -a[1], x2: b[0], y2: -b[1], stroke: "#7a5230", "stroke-width": unit * 0.45, "stroke-linecap": "round" }));
    }
    const c = t.points.reduce((s, p) => [s[0] + p[0] / t.points.length, s[1] + p[1] / t.points.length], [0, 0]);
    g.appendChild(el("text", { x: c[0], y: -c[1], "font-size": unit * 0.9, "text-anchor": "middle", fill: "#3e5530" }, t.name));
    g.appendChild(el("title", {}, `${t.name} (${t.kind === "difficult" ? "difficult terrain" : "obstacle"})`));
    markSelected(g, "terrain", i);
    svg.appendChild(g);
  });

  // The area the chariot's base sweeps, its centre line and pivots.
  const swept = el("g", { fill: "#8a1c1c", opacity: 0.12 });
  for (const poly of picture.swept) swept.appendChild(el("polygon", { points: pts(poly) }));
  svg.appendChild(swept);
  svg.appendChild(el("polyline", { points: pts(picture.centre_line), fill: "none", stroke: "#8a1c1c", "stroke-width": unit * 0.12, "stroke-dasharray": `${unit * 0.5} ${unit * 0.3}` }));
  for (const [[x, y], degrees] of picture.pivots) {
    if (Math.abs(degrees) < 0.5) continue;
    svg.appendChild(el("circle", { cx: x, cy: -y, r: unit * 0.25, fill: "#8a1c1c" }));
    svg.appendChild(el("text", { x: x + unit * 0.5, y: -y, "font-size": unit * 0.8, fill: "#8a1c1c" }, `${degrees > 0 ? "+" : ""}${degrees.toFixed(0)}°`));
  }
  svg.appendChild(el("polygon", { points: pts(picture.chariot_end), fill: "none", stroke: "#8a1c1c", "stroke-width": unit * 0.08, "stroke-dasharray": `${unit * 0.3} ${unit * 0.2}` }));

  // Formations: each base shaded by its model's chance to be slain.
  const byFormation = new Map();
  for (const b of picture.bases) {
    if (!byFormation.has(b.formation)) byFormation.set(b.formation, []);
    byFormation.get(b.formation).push(b);
  }
  for (const [f, bases] of byFormation) {
    const g = el("g", { class: "draggable formation", "data-kind": "formation", "data-index": f });
    for (const b of bases) {
      const base = el("polygon", { class: b.hero ? "base hero" : "base", points: pts(b.outline), fill: slainColour(b.p_slain), stroke: b.hero ? "#c9a227" : "#333", "stroke-width": unit * (b.hero ? 0.22 : 0.07) });
      base.appendChild(el("title", {}, `${picture.formations[f]} ${b.label}: slain in ${pct(b.p_slain, 1)} of ${grouped(picture.trials)} counted charges`));
      g.appendChild(base);
      if (b.pushed_to) {
        g.appendChild(el("line", { x1: b.centre[0], y1: -b.centre[1], x2: b.pushed_to[0], y2: -b.pushed_to[1], stroke: "#555", "stroke-width": unit * 0.07, "stroke-dasharray": `${unit * 0.2} ${unit * 0.15}` }));
      }
    }
    // The name beside the formation's east end, clear of the path through its middle.
    const east = Math.max(...bases.flatMap((b) => b.outline.map((p) => p[0])));
    const cy = bases.reduce((s, b) => s + b.centre[1], 0) / bases.length;
    g.appendChild(el("text", { x: east + unit * 0.4, y: -cy + unit * 0.3, "font-size": unit * 0.9, fill: "#222" }, picture.formations[f]));
    markSelected(g, "formation", f);
    svg.appendChild(g);
  }

  // Where charges ended: a disc per stop, its area in proportion to the share.
  for (const s of picture.stops) {
    if (s.p < 0.002) continue;
    const disc = el("circle", { cx: s.at[0], cy: -s.at[1], r: Math.sqrt(s.p) * unit * 1.6, fill: "#444", opacity: 0.45 });
    disc.appendChild(el("title", {}, `${pct(s.p, 1)} of charges ${s.how} after ${s.distance.toFixed(1)}"`));
    svg.appendChild(disc);
  }

  // The chariot where it starts, with an arrow along its facing.
  const chariot = el("g", { class: "draggable chariot", "data-kind": "chariot" });
  chariot.appendChild(el("polygon", { class: "outline", points: pts(picture.chariot_start), fill: "#20262e", "fill-opacity": 0.25, stroke: "#20262e", "stroke-width": unit * 0.14 }));
  const c = picture.centre_line[0];
  const facing = ((state.scenario.chariot || {}).facing || 0) * Math.PI / 180;
  const reach = Math.max(...picture.chariot_start.map(([x, y]) => Math.hypot(x - c[0], y - c[1]))) + unit * 0.6;
  const tip = [c[0] + Math.sin(facing) * reach, c[1] + Math.cos(facing) * reach];
  chariot.appendChild(el("line", { x1: c[0], y1: -c[1], x2: tip[0], y2: -tip[1], stroke: "#20262e", "stroke-width": unit * 0.18, "marker-end": "url(#arrow)" }));
  chariot.appendChild(el("text", { x: c[0], y: -(c[1]) + reach + unit * 1.0, "font-size": unit * 0.9, "text-anchor": "middle", fill: "#20262e" }, picture.chariot));
  chariot.appendChild(el("title", {}, `${picture.chariot}: drag to move; facing ${((state.scenario.chariot || {}).facing || 0)}°`));
  markSelected(chariot, "chariot", 0);
  svg.appendChild(chariot);

  const defs = el("defs");
  const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" });
  marker.appendChild(el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#20262e" }));
  defs.appendChild(marker);
  svg.appendChild(defs);

  // A 6-inch scale bar.
  const sx = vx + unit, sy = vy + vh - unit;
  svg.appendChild(el("line", { x1: sx, y1: sy, x2: sx + 6, y2: sy, stroke: "#222", "stroke-width": unit * 0.15 }));
  svg.appendChild(el("text", { x: sx + 3, y: sy - unit * 0.4, "font-size": unit * 0.8, "text-anchor": "middle", fill: "#222" }, `6"`));

  // Inches along the edges: every 6" line named where it meets the top and the left.
  const axes = el("g", { "font-size": unit * 0.7, fill: "#6b6557" });
  for (let x = Math.ceil(vx / 6) * 6; x <= vx + vw; x += 6) {
    axes.appendChild(el("text", { x, y: vy + unit * 0.9, "text-anchor": "middle" }, `${x}"`));
  }
  for (let y = Math.ceil(-(vy + vh) / 6) * 6; y <= -vy; y += 6) {
    if (-y < vy + unit * 1.5) continue; // the top row is the x labels'
    axes.appendChild(el("text", { x: vx + unit * 0.3, y: -y - unit * 0.2 }, `${y}"`));
  }
  svg.appendChild(axes);

  // The colour key of the bases' shading.
  const keyW = Math.min(8, vw / 4), kx = vx + vw - keyW - unit, ky = vy + vh - unit * 1.2;
  const gradient = el("linearGradient", { id: "slain-key" });
  for (const t of [0, 0.25, 0.5, 0.75, 1]) gradient.appendChild(el("stop", { offset: t, "stop-color": slainColour(t) }));
  defs.appendChild(gradient);
  const key = el("g", { class: "colour-key" });
  key.appendChild(el("rect", { x: kx, y: ky - unit * 0.5, width: keyW, height: unit * 0.5, fill: "url(#slain-key)", stroke: "#888", "stroke-width": unit * 0.04 }));
  key.appendChild(el("text", { x: kx, y: ky + unit * 0.7, "font-size": unit * 0.65, fill: "#222" }, "0%"));
  key.appendChild(el("text", { x: kx + keyW, y: ky + unit * 0.7, "font-size": unit * 0.65, fill: "#222", "text-anchor": "end" }, "100%"));
  key.appendChild(el("text", { x: kx + keyW / 2, y: ky - unit * 0.75, "font-size": unit * 0.7, fill: "#222", "text-anchor": "middle" }, "chance to be slain"));
  svg.appendChild(key);
}

function markSelected(g, kind, index) {
  const s = state.selected;
  if (s && s.kind === kind && (kind === "chariot" || s.index === index)) g.classList.add("selected");
}

// The share of charges ending at each distance along the path, as bars.
function drawStops(picture) {
  const box = $("stops");
  const stops = picture.stops.filter((s) => s.p > 0);
  if (!stops.length) { box.innerHTML = ""; return; }
  const length = Math.max(...picture.stops.map((s) => s.distance), 1);
  const w = 600, h = 120, left = 40, bottom = 24, top = 18;
  const maxP = Math.max(...stops.map((s) => s.p));
  const colour = { "stopped": "#8a1c1c", "drove on": "#21643a", "slain by terrain": "#7a5230" };
  let bars = "";
  const labels = [], tops = [];
  for (const s of stops) {
    const x = left + (s.distance / length) * (w - left - 20);
    const bh = (s.p / maxP) * (h - bottom - top);
    bars += `<rect x="${(x - 4).toFixed(1)}" y="${(h - bottom - bh).toFixed(1)}" width="8" height="${bh.toFixed(1)}" fill="${colour[s.how] || "#444"}"><title>${esc(pct(s.p, 1))} ${esc(s.how)} at ${s.distance.toFixed(1)}"</title></rect>`;
    tops.push({ x, top: h - bottom - bh });
    if (s.p / maxP > 0.08) labels.push({ x, y: h - bottom - bh - 3, p: s.p, text: pct(s.p, 1) });
  }
  // Shares over their bars, tallest first; one that would overprint a placed one is left
  // to its bar's tooltip.
  const placed = [];
  for (const l of labels.sort((a, b) => b.p - a.p)) {
    const half = 2.9 * l.text.length + 2;
    if (placed.some((o) => Math.abs(o.x - l.x) < half + o.half && Math.abs(o.y - l.y) < 11)) continue;
    // Nor over a neighbouring bar that rises into it.
    if (tops.some((b) => b.x !== l.x && Math.abs(b.x - l.x) < half + 4 && b.top < l.y)) continue;
    placed.push({ ...l, half });
    bars += `<text x="${l.x.toFixed(1)}" y="${l.y.toFixed(1)}" font-size="10" text-anchor="middle">${esc(l.text)}</text>`;
  }
  let ticks = "";
  for (let d = 0; d <= length + 0.01; d += length > 12 ? 2 : 1) {
    const x = left + (d / length) * (w - left - 20);
    ticks += `<text x="${x.toFixed(1)}" y="${h - 8}" font-size="10" text-anchor="middle">${d}"</text>`;
  }
  box.innerHTML = `<p class="small">Where charges ended along the path (distance driven; ${grouped(picture.trials)} counted charges of this set-up;
    <span style="color:#8a1c1c">stopped by a survivor</span>, <span style="color:#21643a">drove its full Move</span>):</p>
    <svg viewBox="0 0 ${w} ${h}" role="img" aria-label="where charges ended along the path">
    <line x1="${left}" y1="${h - bottom}" x2="${w - 10}" y2="${h - bottom}" stroke="#333"/>${bars}${ticks}</svg>`;
}

// ---------- dragging and selecting ----------
function boardPoint(event) {
  const svg = $("board");
  const p = svg.createSVGPoint();
  p.x = event.clientX; p.y = event.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  return [q.x, q.y];
}

let drag = null;
$("board").addEventListener("pointerdown", (event) => {
  const g = event.target.closest(".draggable");
  if (!g) { select(null); return; }
  const kind = g.dataset.kind, index = Number(g.dataset.index || 0);
  drag = { g, kind, index, start: boardPoint(event), moved: false };
  g.setPointerCapture(event.pointerId);
  g.classList.add("dragging");
  event.preventDefault();
});
$("board").addEventListener("pointermove", (event) => {
  if (!drag) return;
  const [x, y] = boardPoint(event);
  const dx = x - drag.start[0], dy = y - drag.start[1];
  if (Math.hypot(dx, dy) > 0.1) drag.moved = true;
  drag.g.setAttribute("transform", `translate(${dx} ${dy})`);
});
$("board").addEventListener("pointerup", (event) => {
  if (!drag) return;
  const d = drag;
  drag = null;
  d.g.classList.remove("dragging");
  const [x, y] = boardPoint(event);
  // Board inches: x east, y north (the SVG's y runs south); a tenth of an inch is enough.
  const dx = Math.round((x - d.start[0]) * 10) / 10, dy = -Math.round((y - d.start[1]) * 10) / 10;
  select({ kind: d.kind, index: d.index });
  if (!d.moved || (dx === 0 && dy === 0)) { draw(); return; }
  moveBy(d.kind, d.index, dx, dy);
});

const shift = ([x, y], dx, dy) => [round1(x + dx), round1(y + dy)];
function round1(v) { return Math.round(v * 100) / 100; }

function moveBy(kind, index, dx, dy) {
  edit((s) => {
    if (kind === "chariot") s.chariot.at = shift(s.chariot.at || [0, 0], dx, dy);
    if (kind === "formation") s.formations[index].front_centre = shift(s.formations[index].front_centre, dx, dy);
    if (kind === "terrain") {
      const t = s.terrain[index];
      if (t.polygon) t.polygon = t.polygon.map((p) => shift(p, dx, dy));
      if (t.from) { t.from = shift(t.from, dx, dy); t.to = shift(t.to, dx, dy); }
    }
  });
}

function turnBy(degrees) {
  const s = state.selected;
  if (!s) return;
  edit((sc) => {
    const target = s.kind === "chariot" ? sc.chariot : s.kind === "formation" ? sc.formations[s.index] : null;
    if (target) target.facing = (((target.facing || 0) + degrees) % 360 + 360) % 360;
  });
}
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select")) return;
  if (event.key === "[") turnBy(-15);
  if (event.key === "]") turnBy(15);
});

function select(selection) {
  state.selected = selection;
  fillSelected();
}

// ---------- the side panel ----------
// A library profile as the lists show it: its name and its 2024 points.
function withPoints(name, p) {
  return p && p.points ? `${name} (${p.points} pts)` : name;
}

function option(select, value, text, selected) {
  const o = document.createElement("option");
  o.value = value; o.textContent = text; o.selected = !!selected;
  select.appendChild(o);
}

function fillSide() {
  if (state.system !== "mesbg" || !state.scenario) return;
  const lib = state.library.profiles;
  const ch = state.scenario.chariot || {};
  const cp = $("chariot-profile");
  cp.innerHTML = "";
  if (typeof ch.profile !== "string") option(cp, "", `(as in the file: ${ch.name || "chariot"})`, true);
  for (const name of Object.keys(lib.chariots || {})) option(cp, name, name, ch.profile === name);
  const hp = $("hero-profile");
  hp.innerHTML = "";
  option(hp, "none", "none", !ch.hero);
  if (ch.hero && typeof ch.hero.profile !== "string") option(hp, "", `(as in the file: ${ch.hero.name || "Hero"})`, true);
  for (const name of Object.keys(lib.heroes || {})) option(hp, name, name, ch.hero && ch.hero.profile === name);
  $("chariot-facing").value = ch.facing || 0;
  $("chariot-at").textContent = `at [${(ch.at || [0, 0]).map((v) => Number(v).toFixed(1)).join(", ")}] inches`;
  const charge = state.scenario.charge || {};
  const mode = charge.aim !== undefined ? "aim" : charge.plan === "best" ? "best" : "pivots";
  document.querySelector(`input[name=path-mode][value=${mode}]`).checked = true;
  $("pivots").value = (charge.pivots || [0]).join(", ");
  const aim = $("aim-target");
  aim.innerHTML = "";
  for (const f of state.scenario.formations || []) option(aim, f.name, f.name, charge.aim === f.name);
  if (charge.objective) $("best-objective").value = charge.objective;
  fillSelected();
}

function field(label, input) {
  const l = document.createElement("label");
  l.textContent = label + " ";
  l.appendChild(input);
  return l;
}
function input(type, value, onChange, attrs = {}) {
  const i = document.createElement("input");
  i.type = type;
  if (type === "checkbox") i.checked = !!value; else i.value = value;
  for (const [k, v] of Object.entries(attrs)) i.setAttribute(k, v);
  i.addEventListener("change", () => onChange(type === "checkbox" ? i.checked : type === "number" ? Number(i.value) : i.value));
  return i;
}

// A formation's profile as numbers: the library's when it names one, else its own table.
function profileOf(f) {
  const models = state.library.profiles.models || {};
  return typeof f.profile === "string" ? (models[f.profile] || {}) : (f.profile || {});
}

// Spears and pikes are carried by a profile, not a formation, and a model carries one or
// the other: ticking one picks the library's profile of the same warrior with it
// ("Warrior of Minas Tirith" -> "... with spear and shield"), unticking the warrior
// without; with no such profile in the library the profile is written out as numbers
// with the field set (and the other one cleared).
function setWargear(index, key) {
  const other = key === "spear" ? "pike" : "spear";
  return (carry) => edit((sc) => {
    const f = sc.formations[index];
    const models = state.library.profiles.models || {};
    if (typeof f.profile === "string") {
      const bare = (name) => models[name] && !models[name].spear && !models[name].pike;
      const plain = bare(f.profile) ? f.profile : Object.keys(models).find((name) => f.profile.startsWith(`${name} with `) && bare(name));
      const target = !plain ? undefined : carry
        ? Object.keys(models).find((name) => name.startsWith(`${plain} with `) && models[name][key])
        : plain;
      if (target) { f.profile = target; return; }
    }
    const numbers = structuredClone(profileOf(f));
    if (carry) { numbers[key] = true; delete numbers[other]; } else delete numbers[key];
    f.profile = numbers;
  });
}

function fillSelected() {
  const card = $("selected-card");
  const s = state.selected;
  const box = $("selected-fields");
  box.innerHTML = "";
  if (!s || s.kind === "chariot" || !state.scenario || state.system !== "mesbg") { card.hidden = true; markSelection(); return; }
  card.hidden = false;
  if (s.kind === "formation") {
    const f = state.scenario.formations[s.index];
    if (!f) { card.hidden = true; return; }
    $("selected-title").textContent = `Formation: ${f.name}`;
    const set = (key) => (v) => edit((sc) => { sc.formations[s.index][key] = v; });
    box.appendChild(field("Name", input("text", f.name, (v) => edit((sc) => {
      const old = sc.formations[s.index].name;
      sc.formations[s.index].name = v;
      if (sc.charge && sc.charge.aim === old) sc.charge.aim = v;
    }))));
    const profile = document.createElement("select");
    if (typeof f.profile !== "string") option(profile, "", "(as in the file)", true);
    for (const [name, p] of Object.entries(state.library.profiles.models || {})) option(profile, name, withPoints(name, p), f.profile === name);
    profile.addEventListener("change", () => { if (profile.value) set("profile")(profile.value); });
    box.appendChild(field("Profile", profile));
    // The profile's numbers, editable: a change writes the profile out as numbers (from
    // the library's, when it named one) with that field changed.
    const stats = document.createElement("div");
    stats.className = "stats";
    const numbers = profileOf(f);
    for (const [key, label] of [["fight", "F"], ["strength", "S"], ["defence", "D"], ["attacks", "A"], ["wounds", "W"], ["courage", "C"], ["points", "pts"]]) {
      const kind = key === "courage" ? "text" : "number";
      const value = numbers[key] === undefined ? "" : numbers[key];
      stats.appendChild(field(label, input(kind, value, (v) => edit((sc) => {
        const g = sc.formations[s.index];
        const own = structuredClone(profileOf(g));
        if (v === "" || (kind === "number" && !Number.isFinite(v))) delete own[key]; else own[key] = v;
        g.profile = own;
      }), { "data-stat": key, "aria-label": key, ...(kind === "number" ? { min: 0, max: key === "points" ? 1000 : 10 } : { size: 3 }) })));
    }
    box.appendChild(stats);
    box.appendChild(field("Models", input("number", f.count, set("count"), { min: 1, max: 2000 })));
    box.appendChild(field("Ranks", input("number", f.ranks, set("ranks"), { min: 1 })));
    box.appendChild(field("Facing °", input("number", f.facing || 0, set("facing"), { step: 5 })));
    box.appendChild(field("Banner bearer", input("checkbox", f.banner, set("banner"))));
    const carried = profileOf(f);
    box.appendChild(field("Spears (support a friend they touch)", input("checkbox", carried.spear, setWargear(s.index, "spear"))));
    box.appendChild(field("Pikes", input("checkbox", carried.pike, setWargear(s.index, "pike"))));
    // An enemy Hero among the warriors: a library model with Might, Will and Fate.
    const hero = document.createElement("select");
    hero.id = "formation-hero";
    option(hero, "none", "none", !f.hero);
    if (f.hero && typeof f.hero.profile !== "string") option(hero, "", "(as in the file)", true);
    for (const [name, p] of Object.entries(state.library.profiles.models || {})) {
      if (p.might !== undefined) option(hero, name, name, f.hero && f.hero.profile === name);
    }
    hero.addEventListener("change", () => {
      if (!hero.value) return;
      edit((sc) => {
        if (hero.value === "none") delete sc.formations[s.index].hero;
        else sc.formations[s.index].hero = { profile: hero.value };
      });
    });
    box.appendChild(field("Hero among them (front rank, middle)", hero));
  } else {
    const t = (state.scenario.terrain || [])[s.index];
    if (!t) { card.hidden = true; return; }
    $("selected-title").textContent = `${t.kind === "difficult" ? "Difficult terrain" : "Obstacle"}: ${t.name}`;
    box.appendChild(field("Name", input("text", t.name, (v) => edit((sc) => { sc.terrain[s.index].name = v; }))));
  }
  markSelection();
}
// Redraws the board's selection marks without a new check.
function markSelection() {
  document.querySelectorAll("#board .selected").forEach((n) => n.classList.remove("selected"));
  const s = state.selected;
  if (!s) return;
  const q = s.kind === "chariot" ? "#board .chariot" : `#board [data-kind=${s.kind}][data-index="${s.index}"]`;
  const g = document.querySelector(q);
  if (g) g.classList.add("selected");
}

$("remove-selected").addEventListener("click", () => {
  const s = state.selected;
  if (!s) return;
  select(null);
  edit((sc) => {
    if (s.kind === "formation") {
      const [gone] = sc.formations.splice(s.index, 1);
      if (sc.charge && sc.charge.aim === gone.name) sc.charge = { pivots: [0] };
    }
    if (s.kind === "terrain") {
      sc.terrain.splice(s.index, 1);
      if (!sc.terrain.length) delete sc.terrain;
    }
  });
});

$("chariot-profile").addEventListener("change", () => {
  const name = $("chariot-profile").value;
  if (!name) return;
  edit((s) => {
    const old = s.chariot || {};
    s.chariot = { profile: name, name, side: old.side || "evil", at: old.at || [0, 0], facing: old.facing || 0 };
    if (old.hero) s.chariot.hero = old.hero;
  });
});
$("hero-profile").addEventListener("change", () => {
  const name = $("hero-profile").value;
  if (!name) return;
  edit((s) => { if (name === "none") delete s.chariot.hero; else s.chariot.hero = { profile: name }; });
});
$("chariot-facing").addEventListener("change", () => edit((s) => { s.chariot.facing = Number($("chariot-facing").value); }));

// Pivots as a player types them: "15", "15°", "-10 deg", separated by commas or spaces.
function readPivots(text) {
  const words = text.split(/[,;]+|\s+(?=[-+\d])/).map((w) => w.trim()).filter((w) => w !== "");
  const bad = words.find((w) => !Number.isFinite(Number(w.replace(/\s*(°|deg(rees?)?)$/i, ""))));
  if (bad !== undefined) return { bad };
  return { pivots: words.map((w) => Number(w.replace(/\s*(°|deg(rees?)?)$/i, ""))) };
}

function setPath() {
  const mode = document.querySelector("input[name=path-mode]:checked").value;
  const { pivots, bad } = mode === "pivots" ? readPivots($("pivots").value) : {};
  if (bad !== undefined) {
    refused({ error: `pivots: "${bad}" is not a number of degrees (write them like 0, 15°, -30)`, problems: [] });
    return;
  }
  edit((s) => {
    if (mode === "pivots") {
      s.charge = { pivots: pivots.length ? pivots : [0] };
    } else if (mode === "aim") {
      s.charge = { aim: $("aim-target").value || (s.formations && s.formations[0] && s.formations[0].name) };
    } else {
      s.charge = { plan: "best", objective: $("best-objective").value };
    }
  });
}
document.querySelectorAll("input[name=path-mode]").forEach((r) => r.addEventListener("change", setPath));
$("pivots").addEventListener("change", () => { document.querySelector("input[name=path-mode][value=pivots]").checked = true; setPath(); });
$("aim-target").addEventListener("change", () => { document.querySelector("input[name=path-mode][value=aim]").checked = true; setPath(); });
$("best-objective").addEventListener("change", () => { document.querySelector("input[name=path-mode][value=best]").checked = true; setPath(); });

// A point ahead of the chariot, for new pieces: `ahead` inches along its facing.
function aheadOfChariot(ahead, aside = 0) {
  const ch = chariotsOf(state.scenario)[0] || {};
  const [x, y] = ch.at || [0, 0];
  const a = (ch.facing || 0) * Math.PI / 180;
  return [round1(x + Math.sin(a) * ahead + Math.cos(a) * aside), round1(y + Math.cos(a) * ahead - Math.sin(a) * aside)];
}
function freshName(base, taken) {
  let name = base, n = 2;
  while (taken.includes(name)) name = `${base} ${n++}`;
  return name;
}

$("add-formation").addEventListener("click", () => {
  const profile = $("add-profile").value;
  edit((s) => {
    s.formations = s.formations || [];
    const existing = s.formations.length;
    const name = freshName(profile, s.formations.map((f) => f.name));
    s.formations.push({
      name, count: 8, ranks: 2, profile,
      front_centre: aheadOfChariot(6 + 3 * existing, existing % 2 ? 4 : 0),
      facing: (((state.scenario.chariot || {}).facing || 0) + 180) % 360,
    });
    select({ kind: "formation", index: s.formations.length - 1 });
  });
});
$("add-difficult").addEventListener("click", () => {
  edit((s) => {
    s.terrain = s.terrain || [];
    const [x, y] = aheadOfChariot(3, -5);
    const name = freshName("Wood", s.terrain.map((t) => t.name));
    s.terrain.push({ name, kind: "difficult", polygon: [[x - 2, y - 1.5], [x + 2, y - 1.5], [x + 2, y + 1.5], [x - 2, y + 1.5]].map((p) => p.map(round1)) });
    select({ kind: "terrain", index: s.terrain.length - 1 });
  });
});
$("add-obstacle").addEventListener("click", () => {
  edit((s) => {
    s.terrain = s.terrain || [];
    const [x, y] = aheadOfChariot(4, 6);
    const name = freshName("Wall", s.terrain.map((t) => t.name));
    s.terrain.push({ name, kind: "obstacle", from: [round1(x - 2), y], to: [round1(x + 2), y] });
    select({ kind: "terrain", index: s.terrain.length - 1 });
  });
});

// ---------- a turn of several chariots ----------
// A chariot's path fields: under [charge] for a single charge, in its own [[chariots]] table in a turn.
const CHARGE_FIELDS = ["pivots", "aim", "plan", "objective", "distance"];
const MAX_CHARIOTS = 6;

// The chariots of a set-up, each with its path, as a turn lists them.
function chariotsOf(s) {
  if (Array.isArray(s.chariots)) return s.chariots;
  return [Object.assign({}, s.chariot || {}, s.charge || {})];
}

// Writes the chariots back: one as [chariot] and [charge] (the page's own editor), more as [[chariots]].
function setChariots(s, list) {
  if (list.length === 1) {
    const chariot = {}, charge = {};
    for (const [k, v] of Object.entries(list[0])) (CHARGE_FIELDS.includes(k) ? charge : chariot)[k] = v;
    s.chariot = chariot;
    if (Object.keys(charge).length) s.charge = charge; else delete s.charge;
    delete s.chariots;
    delete s.turn; // an order of one chariot says nothing
  } else {
    s.chariots = list;
    delete s.chariot;
    delete s.charge;
    delete s.answer; // a single charge's metrics: a turn's report leads with whether the line broke
  }
}

function showTurnTools() {
  const show = state.system === "mesbg" && !!state.scenario;
  $("turn-tools").hidden = !show;
  if (!show) return;
  const n = chariotsOf(state.scenario).length;
  $("turn-count").textContent = n === 1 ? "One chariot charges." : `A turn of ${n} chariots, charging in order.`;
  $("add-chariot").disabled = n >= MAX_CHARIOTS;
  $("remove-chariot").disabled = n < 2;
}

$("add-chariot").addEventListener("click", () => {
  edit((s) => {
    const list = chariotsOf(s).map((c) => structuredClone(c));
    const last = list[list.length - 1];
    const copy = structuredClone(last);
    // Beside the last one, 5" to its right as it faces, on the same facing and path.
    const [x, y] = last.at || [0, 0];
    const a = (last.facing || 0) * Math.PI / 180;
    copy.at = [round1(x + Math.cos(a) * 5), round1(y - Math.sin(a) * 5)];
    if (copy.name) copy.name = freshName(String(copy.name).replace(/ \d+$/, ""), list.map((c) => c.name));
    list.push(copy);
    setChariots(s, list);
    select(null);
  });
});
$("remove-chariot").addEventListener("click", () => {
  edit((s) => {
    const list = chariotsOf(s).map((c) => structuredClone(c));
    if (list.length < 2) return;
    const removed = list.length; // its number, 1-based
    list.pop();
    // An order given by number keeps the others' order.
    if (s.turn && Array.isArray(s.turn.order)) s.turn.order = s.turn.order.filter((k) => k !== removed);
    setChariots(s, list);
    select(null);
  });
});

// ---------- running ----------
$("seed").addEventListener("change", () => { $("seed").dataset.touched = "1"; });

function playQuery() {
  const trials = Math.round(Number($("trials").value));
  const seed = Math.round(Number($("seed").value));
  return `trials=${encodeURIComponent(trials)}&seed=${encodeURIComponent(seed)}`;
}

async function startJob(path, body, json, onDone) {
  $("progress").value = 0;
  $("progress-text").textContent = "starting…";
  const { ok, answer } = await api("POST", `${path}?${playQuery()}`, body, json);
  if (!ok) {
    $("progress-text").textContent = answer.error || "the server refused the run";
    return;
  }
  state.job = answer.id;
  setRunning(true);
  for (;;) {
    await new Promise((r) => setTimeout(r, 150));
    const status = await api("GET", `/api/jobs/${state.job}`);
    if (!status.ok) { $("progress-text").textContent = status.answer.error; break; }
    const s = status.answer;
    $("progress").value = s.trials ? s.done / s.trials : 0;
    if (s.state === "queued") {
      $("progress-text").textContent = s.position > 1
        ? `waiting its turn: ${s.position - 1} run${s.position === 2 ? "" : "s"} of other players first (${s.waited_s.toFixed(0)} s so far)`
        : `next in line, waiting for a run to finish (${s.waited_s.toFixed(0)} s so far)`;
      continue;
    }
    $("progress-text").textContent = `${grouped(s.done)} of ${grouped(s.trials)} trials, ${s.elapsed_s.toFixed(1)} s`;
    if (s.state === "running") continue;
    if (s.state === "done") {
      $("progress-text").textContent = `${grouped(s.trials)} trials in ${s.elapsed_s.toFixed(2)} s`;
      onDone(s);
    } else {
      $("progress-text").textContent = `${s.state}: ${s.error}`;
    }
    break;
  }
  state.job = null;
  setRunning(false);
}

function setRunning(running) {
  $("run").disabled = running || !state.check;
  $("compare").disabled = running || !state.a || !state.check;
  $("cancel").disabled = !running;
  document.body.dataset.running = running ? "yes" : "no";
}

$("run").addEventListener("click", () => {
  const ranOn = state.check && state.check.toml;
  startJob("/api/jobs/run", state.scenario, true, (s) => { state.ranOn = ranOn; showRun(s); markStale(); });
});
$("cancel").addEventListener("click", async () => {
  if (state.job) await api("DELETE", `/api/jobs/${state.job}`);
});
// A page closed or reloaded while its run plays stops the run (the server also stops a
// run nobody asks after for a few minutes, in case this never arrives).
window.addEventListener("pagehide", () => {
  if (state.job) navigator.sendBeacon(`/api/jobs/${state.job}/cancel`);
});

function valueText(flag, v) { return flag ? pct(v) : num(v); }

// A metric as a player reads it: its meaning, capitalised (a chance as "Chance: ..."), with
// the name the files use beneath.
function plainName(name, d) {
  const words = d.description ? d.description.charAt(0).toUpperCase() + d.description.slice(1) : name.replace(/_/g, " ");
  return `${esc(d.flag ? `Chance: ${words.charAt(0).toLowerCase()}${words.slice(1)}` : words)}<br><code class="small">${esc(name)}</code>`;
}

function showRun(status) {
  const r = status.result;
  const defs = new Map((status.metrics || []).map((d) => [d.name, d]));
  $("results").hidden = false;
  $("results-title").textContent = r.title;
  $("results-facts").textContent = `${grouped(r.trials)} ${state.check ? state.check.trial_word : "trial"}s, seed ${r.seed}, ${(r.trials_per_second / 1e6).toFixed(1)} M trials/s on ${r.threads} threads. Reproduce: ${r.command}`;
  // A charge's run.json keeps exact values by metric; a turn's under `metrics`.
  const exact = r.exact && !r.exact.unavailable ? (r.exact.metrics || r.exact) : null;
  // Each metric in words first; its name in the files (CSV, JSON) small beneath.
  let html = `<thead><tr><th class="name">what was counted</th><th>mean</th><th>95% interval</th>${exact ? "<th>exact</th><th>z</th>" : ""}</tr></thead><tbody>`;
  for (const [name, m] of Object.entries(r.metrics)) {
    const d = defs.get(name) || { flag: false, description: "" };
    if (d.labels) continue; // a categorical metric: its outcomes are listed as flags
    const e = exact && exact[name];
    const far = e && e.z !== null && Math.abs(e.z) > 5;
    html += `<tr data-metric="${esc(name)}"><td class="name">${plainName(name, d)}</td><td class="mean">${valueText(d.flag, m.mean)}</td>
      <td>${valueText(d.flag, m.ci95_lo)} – ${valueText(d.flag, m.ci95_hi)}</td>
      ${exact ? `<td class="exact">${e ? valueText(d.flag, e.exact) : "–"}</td><td class="${far ? "far" : ""}">${e && e.z !== null ? e.z.toFixed(2) : "–"}</td>` : ""}</tr>`;
  }
  html += "</tbody>";
  $("metrics-table").innerHTML = html;
  const noExact = r.exact && r.exact.unavailable ? `<p class="small">No exact values: ${esc(r.exact.unavailable)}</p>` : "";
  $("ends").innerHTML = noExact + (r.charge_ends
    ? `<h3>How charges end</h3><table><thead><tr><th class="name">end</th><th>share</th><th>95% interval</th><th>exact</th></tr></thead><tbody>${r.charge_ends.map((e) => `<tr><td class="name">${esc(e.words)}</td><td>${pct(e.p)}</td><td>${pct(e.ci95_lo)} – ${pct(e.ci95_hi)}</td><td>${e.exact === null || e.exact === undefined ? "–" : pct(e.exact)}</td></tr>`).join("")}</tbody></table>`
    : "");
  $("conditional").innerHTML = r.conditional && r.conditional.length
    ? `<h3>Given rates</h3><table><thead><tr><th class="name">rate</th><th>mean</th><th>95% interval</th><th>among</th></tr></thead><tbody>${r.conditional.map((c) => `<tr><td class="name">${esc(c.description)}</td><td>${valueText(c.flag, c.mean)}</td><td>${valueText(c.flag, c.ci95_lo)} – ${valueText(c.flag, c.ci95_hi)}</td><td>${grouped(c.trials)} trials</td></tr>`).join("")}</tbody></table>`
    : "";
  $("downloads").innerHTML = `<h3>The report</h3><p><a class="button" id="report-zip" href="/api/jobs/${esc(status.id)}/report.zip" download>Download the report (zip, with its charts as PNG)</a></p><p>${status.files.filter((f) => !f.name.endsWith(".png") && !f.name.endsWith(".svg")).map((f) => `<a href="${f.url}" download="${esc(f.name)}">${esc(f.name)}</a>`).join(" ")}</p>`;
  $("charts").innerHTML = status.files.filter((f) => f.name.endsWith(".svg"))
    .map((f) => `<figure><a href="${f.url}" target="_blank"><img src="${f.url}" alt="${esc(f.name)}" loading="lazy"></a><figcaption>${esc(f.name)}</figcaption></figure>`).join("");
  state.lastRun = r;
  showDuel(r);
  $("results").scrollIntoView({ behavior: "smooth", block: "start" });
}

// The duel headline: how often the chariot wins the fight that follows its charge, and,
// when a Hero with Might rides it, a paired run without his Might (what it is worth).
function showDuel(r) {
  const won = (r.conditional || []).find((c) => c.name === "fight_won_given_fought");
  const fought = r.metrics && r.metrics.fight_fought;
  if (!won || won.mean === null || !fought) { $("duel").hidden = true; return; }
  const share = `${pct(won.mean, 1)} (95%: ${pct(won.ci95_lo, 1)} – ${pct(won.ci95_hi, 1)})`;
  let html = `The chariot wins the fight after its charge in <b>${share}</b> of the charges that end in a fight
    <span class="small">${pct(fought.mean, 1)} of charges end in a fight; ${grouped(won.trials)} fights counted.</span>`;
  const hero = state.scenario && state.scenario.chariot && state.scenario.chariot.hero;
  const might = hero && (hero.might !== undefined ? hero.might
    : ((state.library.profiles.heroes || {})[hero.profile] || {}).might);
  const withMight = might > 0 && hero.might_policy !== "none";
  if (withMight) html += `<span class="small" id="duel-might">With the Might of the Hero riding it (${might}), spent as the set-up says; playing the same charges without it…</span>`;
  $("duel").innerHTML = html;
  $("duel").hidden = false;
  if (!withMight) return;
  // The same charges without his Might, on common random numbers, once this run is over.
  const without = structuredClone(state.scenario);
  without.chariot.hero.might_policy = "none";
  without.chariot.hero.might_on_saves = false;
  if (without.title) without.title = `${without.title}, without his Might`;
  const comparedOn = state.check && state.check.toml;
  setTimeout(() => startJob("/api/jobs/compare", { a: without, b: state.scenario }, true, (st) => {
    state.comparedOn = comparedOn;
    showComparison(st, false);
    markStale();
    const d = st.result.differences;
    if (!d.fight_won || !d.fight_fought || !$("duel-might")) return;
    const rate = d.fight_fought.mean_a > 0 ? d.fight_won.mean_a / d.fight_fought.mean_a : null;
    const gain = d.fight_won;
    $("duel-might").innerHTML = `Without his Might it wins <b>${rate === null ? "–" : pct(rate, 1)}</b> of them:
      his Might adds <b>${(100 * gain.diff).toFixed(1)} points</b> to the chance of winning the charge's fight
      (of all charges; paired on the same dice, 95%: ${(100 * gain.ci95_lo).toFixed(1)} to ${(100 * gain.ci95_hi).toFixed(1)}; the comparison is below).`;
  }), 0);
}

// ---------- comparing ----------
$("keep-a").addEventListener("click", () => {
  if (!state.check) return;
  state.a = { toml: state.check.toml, title: state.check.title, scenario: structuredClone(state.scenario) };
  showA();
  rememberRun();
  $("compare").disabled = state.job !== null;
});
$("compare").addEventListener("click", () => {
  if (!state.a || !state.scenario) return;
  const comparedOn = state.check && state.check.toml;
  startJob("/api/jobs/compare", { a: state.a.scenario, b: state.scenario }, true, (s) => {
    state.comparedOn = comparedOn;
    showComparison(s);
    markStale();
  });
});

function showA() {
  $("a-title").textContent = state.a ? `A: ${state.a.title} (kept; now change the set-up and compare)` : "A: none kept yet";
}

function showComparison(status, scroll = true) {
  const r = status.result;
  $("comparison").hidden = false;
  $("comparison-facts").textContent = `A: ${r.names[0]} — B: ${r.names[1]}. ${grouped(r.trials)} paired trials on common random numbers, seed ${r.seed}. Reproduce: ${r.command}`;
  let html = `<thead><tr><th class="name">what was counted</th><th>A</th><th>B</th><th>B − A</th><th>95% interval</th><th>p</th></tr></thead><tbody>`;
  for (const [name, d] of Object.entries(r.differences)) {
    const f = (v) => valueText(d.flag, v);
    const diff = d.flag ? `${(100 * d.diff).toFixed(2)} pts` : num(d.diff);
    const lo = d.flag ? `${(100 * d.ci95_lo).toFixed(2)}` : num(d.ci95_lo), hi = d.flag ? `${(100 * d.ci95_hi).toFixed(2)}` : num(d.ci95_hi);
    html += `<tr data-metric="${esc(name)}"><td class="name">${plainName(name, d)}</td><td>${f(d.mean_a)}</td><td>${f(d.mean_b)}</td><td>${diff}</td><td>${lo} – ${hi}</td><td>${d.p_value < 0.0001 ? "< 0.0001" : d.p_value.toFixed(4)}</td></tr>`;
  }
  $("comparison-table").innerHTML = html + "</tbody>";
  const only = r.only_in || { a: [], b: [] };
  const unpaired = [["A", only.a], ["B", only.b]].filter(([, names]) => names.length)
    .map(([side, names]) => `Not compared, reported by ${side} only: ${names.join(", ")}.`);
  $("comparison-facts").textContent += unpaired.length ? ` ${unpaired.join(" ")}` : "";
  $("comparison-downloads").innerHTML = `<p><a class="button" href="/api/jobs/${esc(status.id)}/report.zip" download>Download the comparison (zip)</a></p><p>${status.files.filter((f) => !f.name.endsWith(".png")).map((f) => `<a href="${f.url}" download="${esc(f.name)}">${esc(f.name)}</a>`).join(" ")}</p>`;
  if (scroll) $("comparison").scrollIntoView({ behavior: "smooth", block: "start" });
}

// ---------- the file as the player wrote it ----------
// An edit on the board changes values; the file keeps its comments and number formatting
// where it can: each changed value is written in place on its own line, and the result is
// used only if the server reads it as the same set-up (otherwise the server's canonical
// form stands, as when a table was added).
const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function bareKey(k) { return /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k); }
function tomlValue(v) {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : null;
  if (typeof v === "boolean") return String(v);
  const parts = Array.isArray(v) ? v.map(tomlValue)
    : v && typeof v === "object" ? Object.entries(v).map(([k, x]) => { const t = tomlValue(x); return t === null ? null : `${bareKey(k)} = ${t}`; })
    : [null];
  if (parts.includes(null)) return null;
  return Array.isArray(v) ? `[${parts.join(", ")}]` : `{ ${parts.join(", ")} }`;
}
function at(value, path) { return path.reduce((v, k) => (v === undefined || v === null ? undefined : v[k]), value); }
// Where a line's value ends and its comment begins (outside strings), or -1.
function commentAt(text) {
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) { if (c === "\\" && quote === '"') i++; else if (c === quote) quote = null; }
    else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return i;
  }
  return -1;
}
function mergeFile(file, next) {
  if (!file) return null;
  const out = [];
  let table = [];
  const arrays = {};
  for (const line of file.text.split("\n")) {
    const header = line.match(/^\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$/);
    if (header) {
      const names = header[2].split(".");
      const path = [];
      names.forEach((name, i) => {
        path.push(name);
        const prefix = names.slice(0, i + 1).join(".");
        if (header[1] === "[[" && i === names.length - 1) arrays[prefix] = (arrays[prefix] === undefined ? 0 : arrays[prefix] + 1);
        if (arrays[prefix] !== undefined) path.push(arrays[prefix]);
      });
      table = path;
      out.push(line);
      continue;
    }
    const pair = line.match(/^(\s*)([A-Za-z0-9_-]+|"[^"]*")(\s*=\s*)(.*)$/);
    if (!pair) { out.push(line); continue; }
    const key = pair[2].startsWith('"') ? JSON.parse(pair[2]) : pair[2];
    const rest = pair[4];
    const cut = commentAt(rest);
    const valueText = (cut < 0 ? rest : rest.slice(0, cut)).trimEnd();
    const opens = (valueText.match(/[[{]/g) || []).length, closes = (valueText.match(/[\]}]/g) || []).length;
    if (opens !== closes) return null; // a value over several lines: not merged
    const path = [...table, key];
    const before = at(file.scenario, path), after = at(next, path);
    if (before === undefined) return null;
    if (after === undefined) continue; // the field was removed
    if (sameJson(before, after)) { out.push(line); continue; }
    const written = tomlValue(after);
    if (written === null) return null;
    const gap = cut < 0 ? "" : rest.slice(valueText.length, cut);
    out.push(`${pair[1]}${pair[2]}${pair[3]}${written}${cut < 0 ? "" : (gap || "  ") + rest.slice(cut)}`);
  }
  return out.join("\n");
}
async function keepFileForm(next, canonical) {
  const merged = mergeFile(state.file, next);
  state.file = { text: canonical, scenario: next };
  if (merged === null || merged === canonical) return;
  const { ok, answer } = await api("POST", "/api/validate?board_trials=1", merged, false);
  const still = state.check && sameJson(state.check.scenario, next) && !tomlEdited();
  if (ok && still && sameJson(answer.scenario, next)) {
    $("toml").value = merged;
    remember(merged);
    state.file = { text: merged, scenario: next };
  }
}

// ---------- the player's work ----------
// Title and question: on every report, download and comparison.
for (const key of ["title", "question"]) {
  $(key).addEventListener("change", () => {
    const v = $(key).value.trim();
    if (!state.scenario || (key === "title" && !v)) return;
    edit((s) => { if (v) s[key] = v; else delete s[key]; });
  });
}

// Results shown belong to the set-up they were run on; after any edit they are marked.
function markStale() {
  for (const [id, ran] of [["results", state.ranOn], ["comparison", state.comparedOn]]) {
    const stale = !!ran && !!state.check && ran !== state.check.toml;
    $(id).classList.toggle("stale", stale);
    $(id).querySelector(".stale-note").hidden = !stale;
  }
}

// The file box: edits typed there and not applied are never overwritten by the board.
let tomlShown = "";
function tomlEdited() { return $("toml").value !== tomlShown && $("toml").value !== (state.check ? state.check.toml : ""); }
function tomlKept(kept) { $("toml-kept").hidden = !kept; }
const setToml = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
Object.defineProperty($("toml"), "value", {
  get() { return setToml.get.call(this); },
  set(v) { tomlShown = v; setToml.set.call(this, v); },
});
$("discard-toml").addEventListener("click", () => {
  if (state.check) $("toml").value = state.check.toml;
  tomlKept(false);
});

// The trials asked for and the set-up kept as A survive a reload.
const KEPT_RUN = "charioteer.run";
function rememberRun() {
  try { localStorage.setItem(KEPT_RUN, JSON.stringify({ trials: $("trials").value, a: state.a })); } catch { /* nothing kept */ }
}
function rememberedRun() {
  try { return JSON.parse(localStorage.getItem(KEPT_RUN) || "{}"); } catch { return {}; }
}
$("trials").addEventListener("change", rememberRun);

// ---------- files ----------
$("apply-toml").addEventListener("click", () => check({ text: $("toml").value }));
$("open-file").addEventListener("change", async () => {
  const file = $("open-file").files[0];
  if (!file) return;
  await opened(await file.text());
  $("open-file").value = "";
});
$("download-toml").addEventListener("click", () => {
  const text = $("toml").value;
  const blob = new Blob([text], { type: "application/toml" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${(state.check ? state.check.title : "scenario").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "scenario"}.toml`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});
// A new scenario file: its own view and seed; the last one's results are put away.
function opened(text) {
  select(null);
  state.view = null;
  $("seed").dataset.touched = "";
  $("results").hidden = true;
  $("comparison").hidden = true;
  return check({ text });
}
$("examples").addEventListener("change", () => {
  const v = $("examples").value;
  opened(v === "" ? state.keptAtStart : state.library.examples[Number(v)].toml);
});

// ---------- start ----------
// The last valid set-up is kept in this browser, so a reload (or tomorrow) starts from it.
const KEPT = "charioteer.scenario";
function remember(toml) {
  try { localStorage.setItem(KEPT, toml); } catch { /* private mode: nothing kept */ }
}
function remembered() {
  try { return localStorage.getItem(KEPT); } catch { return null; }
}

async function start() {
  $("board-hint").dataset.mesbg = $("board-hint").textContent;
  const { answer } = await api("GET", "/api/library");
  state.library = answer;
  $("version").textContent = answer.version;
  answer.examples.forEach((e, i) => option($("examples"), i, `${e.system === "battlesystem" ? "BATTLESYSTEM: " : ""}${e.title}`, i === 0));
  for (const [name, p] of Object.entries(answer.profiles.models || {})) option($("add-profile"), name, withPoints(name, p), name === "Warrior of Minas Tirith");
  const run = rememberedRun();
  if (run.trials) $("trials").value = run.trials;
  if (run.a && run.a.scenario) { state.a = run.a; showA(); }
  setRunning(false);
  const kept = remembered();
  if (!(kept && await check({ text: kept }))) await check({ text: answer.examples[0].toml });
  if (kept && state.check && state.check.toml === kept) {
    state.keptAtStart = kept;
    $("examples").insertBefore(new Option("(your last set-up, kept in this browser)", "", true, true), $("examples").firstChild);
  }
  document.body.dataset.ready = "yes";
}
start();
