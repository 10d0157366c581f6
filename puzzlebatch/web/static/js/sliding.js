// Sliding puzzles: type or shuffle a board, see its solvability at once, solve it optimally, animate the moves.
import { api, runJob, cancelJob, say, svgEl } from "./api.js";

const $ = (id) => document.getElementById(id);
const st = { rows: 3, cols: 3, tiles: [], path: null, step: 0, timer: null, job: null, checks: 0 };

function size() { const [r, c] = $("sl-size").value.split("x").map(Number); st.rows = r; st.cols = c; }
function parseTiles() { return $("sl-tiles").value.trim().split(/[\s,]+/).filter(Boolean).map((t) => (t === "." || t === "_" ? 0 : Number(t))); }

function draw(tiles) {
  const svg = $("sl-board");
  svg.textContent = "";
  const s = Math.floor(300 / Math.max(st.rows, st.cols));
  svg.setAttribute("width", st.cols * s + 20); svg.setAttribute("height", st.rows * s + 20);
  svg.setAttribute("viewBox", `0 0 ${st.cols * s + 20} ${st.rows * s + 20}`);
  tiles.forEach((t, k) => {
    if (!t) return;
    const x = 10 + (k % st.cols) * s, y = 10 + Math.floor(k / st.cols) * s;
    const g = svgEl("g", { class: "tile", "data-tile": t }, svg);
    svgEl("rect", { x: x + 3, y: y + 3, width: s - 6, height: s - 6, rx: 8, fill: "#2457c5" }, g);
    const txt = svgEl("text", { x: x + s / 2, y: y + s / 2 + s * 0.12, "text-anchor": "middle", "font-size": s * 0.36, fill: "#fff" }, g);
    txt.textContent = t;
    g.addEventListener("click", () => slide(k));
  });
}

function slide(k) {  // play by hand: a tile next to the blank slides into it
  const b = st.tiles.indexOf(0);
  if (Math.abs(Math.floor(b / st.cols) - Math.floor(k / st.cols)) + Math.abs((b % st.cols) - (k % st.cols)) !== 1) return;
  [st.tiles[b], st.tiles[k]] = [st.tiles[k], 0];
  $("sl-tiles").value = st.tiles.join(" ");
  changed();
}

async function changed() {
  size();
  st.tiles = parseTiles();
  st.path = null; stop(); updateSteps();
  say($("sl-message"), "");  // a solution or error of the board before no longer applies
  const mine = ++st.checks;  // answers can come back out of order: only the latest board's is shown
  try {
    const r = await api("/api/sliding/check", { rows: st.rows, cols: st.cols, tiles: st.tiles, goal: $("sl-goal").value });
    if (mine !== st.checks) return;
    draw(st.tiles);
    say($("sl-parity"), r.solved ? "solved: this is the goal" : r.explanation, r.solvable ? "ok" : "error");
    $("sl-solve").disabled = !r.solvable || r.solved;
  } catch (e) { if (mine === st.checks) { say($("sl-parity"), e.message, "error"); $("sl-solve").disabled = true; } }
}

async function shuffle() {
  size();
  const r = await api("/api/sliding/shuffle", { rows: st.rows, cols: st.cols, moves: Number($("sl-moves").value),
                                                 seed: Number($("sl-seed").value), goal: $("sl-goal").value });
  $("sl-tiles").value = r.tiles.join(" ");
  $("sl-seed").value = r.seed + 1;
  changed();
}

function boardAfter(n) {
  const t = [...st.tiles];
  for (const tile of st.path.moves.slice(0, n)) { const a = t.indexOf(tile), b = t.indexOf(0); t[b] = tile; t[a] = 0; }
  return t;
}
function updateSteps() {
  const has = !!st.path;
  for (const id of ["sl-play", "sl-prev", "sl-next"]) $(id).disabled = !has;
  $("sl-pos").textContent = has ? `move ${st.step} / ${st.path.moves.length}` : "";
  const v = $("sl-moves-view");
  v.textContent = "";
  if (!has) return;
  st.path.moves.forEach((m, k) => {
    const e = document.createElement(k === st.step - 1 ? "mark" : "span");
    e.textContent = m + " ";
    v.appendChild(e);
  });
}
function show(n) { st.step = Math.max(0, Math.min(st.path.moves.length, n)); draw(boardAfter(st.step)); updateSteps(); }
function stop() { if (st.timer) clearInterval(st.timer); st.timer = null; $("sl-play").textContent = "Animate"; }
function animate() {
  if (st.timer) return stop();
  if (st.step >= st.path.moves.length) show(0);
  $("sl-play").textContent = "Pause";
  st.timer = setInterval(() => { if (st.step >= st.path.moves.length) stop(); else show(st.step + 1); }, 350);
}

async function solve() {
  $("sl-solve").disabled = true; $("sl-cancel").disabled = false;
  const board = st.checks;  // the board this solve is for: an edit meanwhile makes its answer stale
  try {
    const j = await runJob("/api/sliding/solve", { rows: st.rows, cols: st.cols, tiles: st.tiles, goal: $("sl-goal").value,
                                                    keep: $("sl-keep").checked },
      (job) => { st.job = job; say($("sl-message"), `solving: ${job.phase}${job.seconds ? ` · ${job.seconds.toFixed(1)} s` : ""}`); });
    const r = j.result;
    if (board !== st.checks) return;
    if (!r.solvable) { say($("sl-message"), r.explanation, "error"); return; }
    st.path = r; show(0);
    say($("sl-message"), `${r.length} moves (optimal, ${r.heuristic}): ${r.nodes.toLocaleString()} nodes in ${r.seconds.toFixed(3)} s on ${r.backend}` +
      (r.stored ? ` · kept in ${r.stored.file}` : ""), "ok");
    document.body.dataset.slidingSolved = String(r.length);
  } catch (e) { say($("sl-message"), e.message, "error"); } finally { $("sl-solve").disabled = false; $("sl-cancel").disabled = true; st.job = null; }
}

export async function start() {
  $("sl-size").addEventListener("change", () => { size(); $("sl-tiles").value = [...Array(st.rows * st.cols).keys()].map((k) => (k + 1) % (st.rows * st.cols)).join(" "); changed(); });
  $("sl-tiles").addEventListener("input", changed);
  $("sl-goal").addEventListener("change", changed);
  $("sl-shuffle").addEventListener("click", shuffle);
  $("sl-solve").addEventListener("click", solve);
  $("sl-cancel").addEventListener("click", () => st.job && cancelJob(st.job.id));
  $("sl-play").addEventListener("click", animate);
  $("sl-prev").addEventListener("click", () => { stop(); show(st.step - 1); });
  $("sl-next").addEventListener("click", () => { stop(); show(st.step + 1); });
  await changed();
}
