// Level workshop: place, turn and clear pieces on any board; solve, count, generate, import and export levels.
import { api, runJob, cancelJob, say, svgEl, pieceColour } from "./api.js";

const CELL = 40;
const $ = (id) => document.getElementById(id);
const st = {
  size: [11, 5], pieces: [], holes: new Set(), placed: [], current: null, solution: null, job: null,
  pieceSpec: { pieces: "iq-puzzler-pro", pieces_text: null },
};
const key = (c) => c.join(",");
const dim = () => st.size.length;

// -- orientations --------------------------------------------------------------------------------------------
function normalize(cells) {
  const lo = cells[0].map((_, i) => Math.min(...cells.map((c) => c[i])));
  return cells.map((c) => c.map((v, i) => v - lo[i])).sort((a, b) => (a[2] || 0) - (b[2] || 0) || a[1] - b[1] || a[0] - b[0]);
}
const shapeKey = (cells) => normalize(cells).map(key).sort().join(";");
function turned(cells, how) {
  const f = {
    rotate: (c) => (c.length === 3 ? [c[1], -c[0], c[2]] : [c[1], -c[0]]),
    flip: (c) => (c.length === 3 ? [c[0], -c[2], c[1]] : [-c[0], c[1]]),
  }[how];
  return normalize(cells.map(f));
}
function turnCurrent(how) {
  if (!st.current) return;
  const piece = st.pieces[st.current.index];
  const allowed = new Set(piece.orientations.map(shapeKey));
  let cells = st.current.cells;
  for (let i = 0; i < 4; i++) {
    cells = turned(cells, how);
    if (allowed.has(shapeKey(cells))) { st.current.cells = cells; drawPalette(); return; }
  }
  say($("ws-message"), `${piece.name} may not be ${how === "flip" ? "turned over" : "turned"} (turns=${piece.turns})`, "error");
}

// -- level state ---------------------------------------------------------------------------------------------
function level() {
  return { board: st.size.join("x"), ...st.pieceSpec, holes: [...st.holes].map((k) => k.split(",").map(Number)),
           placed: st.placed.map((p) => ({ piece: p.piece, cells: p.cells })) };
}
function owners() {
  const m = new Map();
  for (const p of st.placed) for (const c of p.cells) m.set(key(c), { piece: p.piece, placed: true });
  if (st.solution) for (const p of st.solution) for (const c of p.cells) if (!m.has(key(c))) m.set(key(c), { piece: p.piece, placed: false });
  return m;
}
function used(name) { return st.placed.filter((p) => p.piece === name).length; }
// The level changed: the solution and every message about the old level no longer apply.
function edited() { st.solution = null; $("ws-level-text").hidden = true; say($("ws-message"), ""); draw(); }

function anchorCells(cells, at) {
  const a = cells[0];
  return cells.map((c) => c.map((v, i) => v - a[i] + at[i]));
}
function fits(cells) {
  const own = owners();
  return cells.every((c) => c.every((v, i) => v >= 0 && v < st.size[i]) && !st.holes.has(key(c)) &&
    !(own.get(key(c)) || {}).placed);
}

// -- drawing -------------------------------------------------------------------------------------------------
function drawPalette() {
  const pal = $("ws-palette");
  pal.textContent = "";
  st.pieces.forEach((p, i) => {
    const left = p.count < 0 ? Infinity : p.count - used(p.name);
    const div = document.createElement("div");
    div.className = "piece" + (st.current && st.current.index === i ? " selected" : "") + (left <= 0 ? " used" : "");
    div.dataset.piece = p.name;
    const cells = st.current && st.current.index === i ? st.current.cells : normalize(p.orientations[0]);
    const w = Math.max(...cells.map((c) => c[0])) + 1, h = Math.max(...cells.map((c) => c[1])) + 1;
    const s = Math.min(16, 80 / Math.max(w, h));
    const svg = svgEl("svg", { width: 84, height: Math.max(20, h * s + 4) });
    for (const c of cells) {
      svgEl("rect", { x: 2 + c[0] * s + (c[2] || 0) * 3, y: 2 + c[1] * s - (c[2] || 0) * 3, width: s - 1, height: s - 1,
                      fill: pieceColour(p.name, i, p.colour), stroke: "#333", "stroke-width": 0.5 }, svg);
    }
    div.appendChild(svg);
    div.appendChild(document.createTextNode(p.name + (p.count < 0 ? " ∞" : p.count > 1 ? ` ×${left}` : "")));
    div.addEventListener("pointerdown", (ev) => { ev.preventDefault(); select(i); st.dragging = true; });
    pal.appendChild(div);
  });
}

function select(i) {
  const p = st.pieces[i];
  if (p.count >= 0 && used(p.name) >= p.count) { say($("ws-message"), `no copy of ${p.name} left`, "error"); return; }
  st.current = { index: i, cells: normalize(p.orientations[0]) };
  document.querySelector('input[name="ws-tool"][value="place"]').checked = true;
  drawPalette();
}

function draw() {
  const box = $("ws-boards");
  box.textContent = "";
  const [w, h] = st.size, d = st.size[2] || 1;
  const own = owners();
  const colourOf = new Map(st.pieces.map((p, i) => [p.name, pieceColour(p.name, i, p.colour)]));
  for (let z = 0; z < d; z++) {
    const svg = svgEl("svg", { width: w * CELL + 2, height: h * CELL + 2, "data-layer": z }, box);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const c = dim() === 3 ? [x, y, z] : [x, y];
      const o = own.get(key(c));
      const hole = st.holes.has(key(c));
      const r = svgEl("rect", { x: 1 + x * CELL, y: 1 + y * CELL, width: CELL, height: CELL, class: "cell",
        fill: hole ? "#3b3f47" : o ? colourOf.get(o.piece) || "#999" : "#fff", "data-cell": key(c),
        "data-owner": o ? o.piece : "", "data-hole": hole ? "1" : "" }, svg);
      if (o && !o.placed) {  // the solver's pieces: lighter, with a dot, so they read apart from the level's
        r.setAttribute("fill-opacity", "0.55");
        r.setAttribute("data-solver", "1");
        svgEl("circle", { cx: 1 + x * CELL + CELL / 2, cy: 1 + y * CELL + CELL / 2, r: 4, fill: "#fff", stroke: "#1d2330",
                          "stroke-width": 1, "pointer-events": "none" }, svg);
      }
      if (o) {  // outline the piece: a thick edge where the neighbour is another piece
        for (const [dx, dy, x1, y1, x2, y2] of [[1, 0, 1, 0, 1, 1], [-1, 0, 0, 0, 0, 1], [0, 1, 0, 1, 1, 1], [0, -1, 0, 0, 1, 0]]) {
          const n = own.get(key(dim() === 3 ? [x + dx, y + dy, z] : [x + dx, y + dy]));
          if (!n || n.piece !== o.piece || n.placed !== o.placed) {
            svgEl("line", { x1: 1 + (x + x1) * CELL, y1: 1 + (y + y1) * CELL, x2: 1 + (x + x2) * CELL, y2: 1 + (y + y2) * CELL,
                            stroke: "#1d2330", "stroke-width": 2.5, "pointer-events": "none" }, svg);
          }
        }
      }
    }
    svg.addEventListener("pointermove", (ev) => ghost(ev, svg));
    svg.addEventListener("pointerleave", () => clearGhost());
    svg.addEventListener("click", (ev) => clicked(ev));
  }
  drawPalette();
}

function cellAt(ev) {
  const t = document.elementFromPoint(ev.clientX, ev.clientY);
  return t && t.dataset && t.dataset.cell ? t.dataset.cell.split(",").map(Number) : null;
}
function clearGhost() { for (const g of document.querySelectorAll(".ghost")) g.remove(); }
function ghost(ev, svg) {
  clearGhost();
  const tool = document.querySelector('input[name="ws-tool"]:checked').value;
  const at = cellAt(ev);
  if (tool !== "place" || !st.current || !at) return;
  const cells = anchorCells(st.current.cells, at);
  const ok = fits(cells);
  for (const c of cells) {
    if ((c[2] || 0) !== (at[2] || 0)) continue;
    const x = 1 + c[0] * CELL + 4, y = 1 + c[1] * CELL + 4, s = CELL - 8;
    if (ok) {
      svgEl("rect", { x, y, width: s, height: s, class: "ghost", fill: "#2457c5", "fill-opacity": 0.35, "pointer-events": "none" }, svg);
    } else {  // does not fit: an outline crossed out, never a filled shape that could pass for a piece
      svgEl("rect", { x, y, width: s, height: s, class: "ghost ghost-bad", fill: "none", stroke: "#b3261e", "stroke-width": 2,
                      "stroke-dasharray": "4 3", "pointer-events": "none" }, svg);
      svgEl("path", { d: `M${x + 6} ${y + 6}L${x + s - 6} ${y + s - 6}M${x + s - 6} ${y + 6}L${x + 6} ${y + s - 6}`, class: "ghost",
                      stroke: "#b3261e", "stroke-width": 2.5, "pointer-events": "none" }, svg);
    }
  }
}

function placeAt(at) {
  if (!st.current) return false;
  const piece = st.pieces[st.current.index];
  const cells = anchorCells(st.current.cells, at);
  if (!fits(cells)) { say($("ws-message"), `${piece.name} does not fit there`, "error"); return false; }
  st.placed.push({ piece: piece.name, cells });
  const left = piece.count < 0 ? Infinity : piece.count - used(piece.name);
  if (left <= 0) st.current = null;
  say($("ws-message"), "");
  edited();
  return true;
}

function clicked(ev) {
  const at = cellAt(ev);
  if (!at) return;
  const tool = document.querySelector('input[name="ws-tool"]:checked').value;
  const k = key(at);
  const i = st.placed.findIndex((p) => p.cells.some((c) => key(c) === k));
  if (tool === "hole") {
    if (i >= 0) return;
    if (st.holes.has(k)) st.holes.delete(k); else st.holes.add(k);
    edited();
  } else if (tool === "place" && i >= 0 && st.current && st.placed[i].piece !== st.pieces[st.current.index].name) {
    // another piece in hand: never swap silently
    say($("ws-message"), `${st.placed[i].piece} is placed there; put ${st.pieces[st.current.index].name} down ` +
        "elsewhere (or press Esc to drop it) before picking it up", "error");
  } else if (tool === "erase" || (i >= 0 && tool === "place")) {
    if (i < 0) return;
    const [p] = st.placed.splice(i, 1);  // picked up: it becomes the piece in hand, as it lay
    if (tool === "place") {
      const idx = st.pieces.findIndex((q) => q.name === p.piece);
      st.current = { index: idx, cells: normalize(p.cells) };
    }
    edited();
  } else {
    placeAt(at);
  }
}

// -- server calls --------------------------------------------------------------------------------------------
async function loadSet() {
  try {
    const info = await api("/api/polyomino/pieces", st.pieceSpec);
    st.pieces = info.pieces;
    st.placed = st.placed.filter((p) => st.pieces.some((q) => q.name === p.piece));
    st.current = null;
    edited();
  } catch (e) { say($("ws-message"), e.message, "error"); }
}

// The server's limits (/api/limits), checked here before anything is drawn: a board the server refuses is refused
// in the page with the server's words, never drawn cell by cell.
let pageLimits = null;
async function boardLimits() {
  if (!pageLimits) pageLimits = await api("/api/limits");
  return pageLimits;
}

function boardRefusal(text, size, lim) {
  if (Math.min(...size) < 1 || Math.max(size[0], size[1]) > lim.board_side || (size.length === 3 && size[2] > lim.board_depth))
    return `--board: ${text} must have sides 1..${lim.board_side} and depth 1..${lim.board_depth}`;
  const cells = size.reduce((a, b) => a * b, 1);
  if (cells > lim.board_cells) return `--board: ${text} has ${cells} cells, more than the ${lim.board_cells} allowed`;
  return null;
}

async function setBoard(text) {
  const m = /^\s*(\d+)\s*x\s*(\d+)\s*(?:x\s*(\d+))?\s*$/i.exec(text);
  if (!m) { say($("ws-message"), `--board: '${text}' is not WxH or WxHxD`, "error"); return; }
  const size = [Number(m[1]), Number(m[2])].concat(m[3] ? [Number(m[3])] : []);
  let lim;
  try { lim = await boardLimits(); } catch (e) { say($("ws-message"), e.message, "error"); return; }
  const refused = boardRefusal(text.trim(), size, lim);
  if (refused) {
    say($("ws-message"), refused, "error");
    $("ws-board").value = st.size.join("x");  // the board drawn stays the one named in the box
    return;
  }
  say($("ws-message"), "");  // an earlier error no longer applies
  st.size = size;
  st.holes = new Set([...st.holes].filter((k) => k.split(",").length === st.size.length));
  st.placed = [];
  edited();
}

function busy(on, job) {
  st.job = on ? job : null;
  for (const id of ["ws-solve", "ws-count", "ws-generate"]) $(id).disabled = on;
  $("ws-cancel").disabled = !on;
}

function etaText(s) {  // as the command line's progress bar writes it
  s = Math.round(s);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

function follow(what) {
  return (j) => {
    if (!st.job || st.job.id !== j.id) busy(true, j);
    const p = j.progress || {};
    const bits = [`${what}: ${j.phase}`];
    if (p.classes !== undefined) bits.push(`${p.classes.toLocaleString()} found so far`, `${p.nodes.toLocaleString()} nodes`, `${p.items_left} items left`);
    if (p.done !== undefined) bits.push(`about ${(100 * p.done).toFixed(1)} % searched` + (p.eta_seconds == null ? "" : `, about ${etaText(p.eta_seconds)} left`));
    if (j.seconds) bits.push(`${j.seconds.toFixed(1)} s`);
    say($("ws-message"), bits.join(" · "));
  };
}

async function solve() {
  const t0 = performance.now();
  try {
    const j = await runJob("/api/polyomino/solve", { ...level(), keep: $("ws-keep").checked }, follow("solving"));
    const r = j.result;
    if (r.solved) {
      st.solution = r.placements;
      draw();
    }
    const ms = performance.now() - t0;  // click to drawn
    document.body.dataset.lastSolveMs = ms.toFixed(0);
    if (r.solved) {
      say($("ws-message"), `Solved: ${r.nodes.toLocaleString()} nodes in ${(r.seconds * 1000).toFixed(0)} ms on ${r.backend}` +
        (r.compile_seconds > 0.5 ? ` (+${r.compile_seconds.toFixed(0)} s compiling)` : "") +
        ` · ${ms.toFixed(0)} ms in all` + (r.stored ? ` · kept in ${r.stored.file} (run ${r.stored.run})` : ""), "ok");
    } else {
      say($("ws-message"), `No solution: the whole search (${r.nodes.toLocaleString()} nodes) found none`, "error");
    }
  } catch (e) { say($("ws-message"), e.message, "error"); } finally { busy(false); }
}

async function count() {
  try {
    const j = await runJob("/api/polyomino/count", level(), follow("counting"));
    const r = j.result;
    const d = r.distinct === null ? "" : `, ${r.distinct.toLocaleString()} distinct up to the board's ${r.symmetries} symmetries`;
    say($("ws-message"), `${r.solutions.toLocaleString()} solutions${d} (${r.nodes.toLocaleString()} nodes, ${r.seconds.toFixed(2)} s on ${r.backend})`, "ok");
  } catch (e) { say($("ws-message"), e.message, e.message === "cancelled" ? "" : "error"); } finally { busy(false); }
}

async function generate() {
  try {
    const body = { ...level(), pieces_left: Number($("ws-left").value), seed: Number($("ws-seed").value) };
    const j = await runJob("/api/polyomino/generate", body, follow("generating"));
    applyLevel(j.result.level);
    say($("ws-message"), `Level with one solution: ${j.result.pieces_left} pieces to place (seed ${j.result.seed})`, "ok");
  } catch (e) { say($("ws-message"), e.message, "error"); } finally { busy(false); }
}

function applyLevel(lv) {
  $("ws-board").value = lv.board;
  st.size = lv.board.split("x").map(Number);
  st.holes = new Set(lv.holes.map(key));
  st.placed = lv.placed.map((p) => ({ piece: p.piece, cells: p.cells }));
  st.current = null;
  edited();
}

async function exportLevel() {
  try {
    const { text } = await api("/api/polyomino/export", level());
    $("ws-level-text").textContent = text;
    $("ws-level-text").hidden = false;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    a.download = "level.txt";
    a.click();
    say($("ws-message"), "Level file written (solve it with: puzzlebatch polyomino solve --pieces … --level level.txt)", "ok");
  } catch (e) { say($("ws-message"), e.message, "error"); }
}

async function importLevel(file) {
  try {
    const text = await file.text();
    applyLevel(await api("/api/polyomino/import", { ...st.pieceSpec, text }));
    say($("ws-message"), `Level ${file.name} loaded`, "ok");
  } catch (e) { say($("ws-message"), e.message, "error"); }
}

export async function start() {
  const sets = await api("/api/polyomino/sets");
  const sel = $("ws-set");
  for (const s of sets.sets) sel.add(new Option(s, s, false, s === sets.default));
  sel.addEventListener("change", () => { st.pieceSpec = { pieces: sel.value, pieces_text: null }; loadSet(); });
  $("ws-board").addEventListener("change", () => setBoard($("ws-board").value));
  $("ws-custom-toggle").addEventListener("click", () => { $("ws-custom").hidden = !$("ws-custom").hidden; });
  $("ws-pieces-apply").addEventListener("click", () => { st.pieceSpec = { pieces: "", pieces_text: $("ws-pieces-text").value }; loadSet(); });
  $("ws-rotate").addEventListener("click", () => turnCurrent("rotate"));
  $("ws-flip").addEventListener("click", () => turnCurrent("flip"));
  $("ws-clear").addEventListener("click", () => { st.placed = []; edited(); });
  $("ws-solve").addEventListener("click", solve);
  $("ws-count").addEventListener("click", count);
  $("ws-generate").addEventListener("click", generate);
  $("ws-cancel").addEventListener("click", () => st.job && cancelJob(st.job.id));
  $("ws-export").addEventListener("click", exportLevel);
  $("ws-import").addEventListener("change", (ev) => ev.target.files[0] && importLevel(ev.target.files[0]));
  window.addEventListener("keydown", (ev) => {
    if (document.body.dataset.page !== "workshop" || ev.target.tagName === "INPUT" || ev.target.tagName === "TEXTAREA") return;
    if (ev.key === "r" || ev.key === "R") turnCurrent("rotate");
    if (ev.key === "f" || ev.key === "F") turnCurrent("flip");
    if (ev.key === "Escape" && st.current) { st.current = null; clearGhost(); drawPalette(); }
  });
  window.addEventListener("pointerup", (ev) => {  // a piece dragged from the palette and dropped on the board
    if (!st.dragging) return;
    st.dragging = false;
    const at = cellAt(ev);
    if (at) placeAt(at);
  });
  await loadSet();
}
