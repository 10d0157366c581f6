// Hex Tetris replay: a game recorded by the server's exact model, played on a canvas at 60 frames/s.
import { api, runJob, say } from "./api.js";

const $ = (id) => document.getElementById(id);
const st = { rec: null, i: 0, playing: false, bg: null, boardCanvas: null, boardAt: -1, frames: [], draws: [] };

function b64(text, Type) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
  return new Type(bytes.buffer);
}

// -- geometry: pointy hexagons, odd rows shifted half a cell right ---------------------------------------------
function layout(w, h) {
  const cv = $("rp-canvas");
  const maxW = Math.min(1100, window.innerWidth - 380);
  const r = Math.max(2, Math.min(maxW / ((w + 0.5) * Math.sqrt(3)), 620 / (h * 1.5 + 0.5)));
  cv.width = Math.ceil((w + 0.5) * Math.sqrt(3) * r) + 2;
  cv.height = Math.ceil((h * 1.5 + 0.5) * r) + 2;
  return r;
}
function centre(x, y, r) { return [1 + Math.sqrt(3) * r * (x + 0.5 + 0.5 * (y & 1)), 1 + r * (1 + 1.5 * y)]; }
function hexPath(path, x, y, r, shrink) {
  const [cx, cy] = centre(x, y, r);
  const rr = r * (shrink || 0.94);
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 180 * (60 * k - 30);
    const px = cx + rr * Math.cos(a), py = cy + rr * Math.sin(a);
    if (k === 0) path.moveTo(px, py); else path.lineTo(px, py);
  }
  path.closePath();
}
function canvas(w, h) { const c = document.createElement("canvas"); c.width = w; c.height = h; return c; }

function prepare(rec) {
  const p = rec.problem;
  st.r = layout(p.width, p.height);
  const cv = $("rp-canvas");
  st.bg = canvas(cv.width, cv.height);
  const g = st.bg.getContext("2d");
  g.fillStyle = "#fff"; g.fillRect(0, 0, cv.width, cv.height);
  const empty = new Path2D();
  for (let y = 0; y < p.height; y++) for (let x = 0; x < p.width; x++) hexPath(empty, x, y, st.r);
  g.fillStyle = "#eef1f6"; g.fill(empty);
  st.initial = new Set(p.filled.map(([x, y]) => y * p.width + x));
  st.boardCanvas = canvas(cv.width, cv.height);
  st.boardAt = -1;
  rec.posesA = b64(rec.poses, Int16Array);
  rec.boardsA = b64(rec.boards, Uint8Array);
  rec.phrasesA = b64(rec.phrases.rows, Int32Array);
  rec.lockCmd = Int32Array.from(rec.locks.command);
}

// -- state at command i --------------------------------------------------------------------------------------------
function upperBound(arr, v, stride, off) {  // entries with value <= v
  let lo = 0, hi = arr.length / (stride || 1);
  while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m * (stride || 1) + (off || 0)] <= v) lo = m + 1; else hi = m; }
  return lo;
}

function drawBoard(locks) {
  if (st.boardAt === locks) return;
  const rec = st.rec, p = rec.problem, bytes = rec.board_bytes;
  const g = st.boardCanvas.getContext("2d");
  g.clearRect(0, 0, st.boardCanvas.width, st.boardCanvas.height);
  const initial = new Path2D(), locked = new Path2D();
  const base = locks * bytes;
  for (let k = 0; k < p.width * p.height; k++) {
    if (rec.boardsA[base + (k >> 3)] & (128 >> (k & 7))) {
      hexPath(st.initial.has(k) ? initial : locked, k % p.width, Math.floor(k / p.width), st.r);
    }
  }
  g.fillStyle = "#7a8290"; g.fill(initial);
  g.fillStyle = "#e0a21b"; g.fill(locked);
  st.boardAt = locks;
}

function render() {
  const t0 = performance.now();
  const rec = st.rec, i = st.i;
  const cv = $("rp-canvas"), g = cv.getContext("2d");
  const locks = upperBound(rec.lockCmd, i);
  drawBoard(locks);
  g.drawImage(st.bg, 0, 0);
  g.drawImage(st.boardCanvas, 0, 0);
  const px = rec.posesA[4 * i], py = rec.posesA[4 * i + 1], turn = rec.posesA[4 * i + 2], unit = rec.posesA[4 * i + 3];
  if (unit >= 0) {
    const path = new Path2D();
    const pq = px - (py >> 1), pr = py;
    for (const [dq, dr] of rec.units[unit][turn]) {
      const r = pr + dr, q = pq + dq;
      hexPath(path, q + (r >> 1), r, st.r);
    }
    g.fillStyle = "#2457c5"; g.fill(path);
    const [cx, cy] = centre(px, py, st.r);
    g.fillStyle = "#fff"; g.beginPath(); g.arc(cx, cy, Math.max(1.5, st.r * 0.3), 0, 2 * Math.PI); g.fill();
  }
  // scores as they accumulate
  const move = locks > 0 ? rec.locks.move_score[locks - 1] : 0;
  const np = upperBound(rec.phrasesA, i, 4, 2);
  const power = np > 0 ? rec.phrasesA[4 * (np - 1) + 3] : 0;
  const atEnd = i === rec.n_commands;
  $("rp-cmd").textContent = `${i.toLocaleString()} / ${rec.n_commands.toLocaleString()}`;
  $("rp-units").textContent = locks.toLocaleString();
  $("rp-move").textContent = (atEnd ? rec.final.move_score : move).toLocaleString();
  $("rp-power").textContent = (atEnd ? rec.final.power_score : power).toLocaleString();
  $("rp-total").textContent = (atEnd ? rec.final.total : move + power).toLocaleString();
  $("rp-end-state").textContent = atEnd ? rec.final.end : "in progress";
  document.body.dataset.replayAtEnd = atEnd ? "1" : "";
  // the phrase being spelled: the first occurrence ending after command i that started before it
  let phrase = null;
  const k = upperBound(rec.phrasesA, i - 1, 4, 2);
  if (k < rec.phrases.count && rec.phrasesA[4 * k + 1] < i) phrase = k;
  $("rp-phrase").textContent = phrase === null ? "–" : rec.phrases.names[rec.phrasesA[4 * phrase]];
  if (!st.playing || st.frames.length % 6 === 0 || phrase !== st.shownPhrase) { textView(i, phrase); st.shownPhrase = phrase; }
  $("rp-scrub").value = i;
  st.draws.push(performance.now() - t0);
}

function textView(i, phrase) {
  const rec = st.rec, lo = Math.max(0, i - 60), hi = Math.min(rec.commands.length, i + 60);
  const view = $("rp-text-view");
  view.textContent = "";
  const s = phrase === null ? -1 : rec.phrasesA[4 * phrase + 1], e = phrase === null ? -1 : rec.phrasesA[4 * phrase + 2];
  for (let k = lo; k < hi; k++) {
    const ch = rec.commands[k] === " " ? "␣" : rec.commands[k];
    if (k === i) { const m = document.createElement("span"); m.className = "now"; m.textContent = ch; view.appendChild(m); }
    else if (k >= s && k < e) { const m = document.createElement("mark"); m.textContent = ch; view.appendChild(m); }
    else view.appendChild(document.createTextNode(ch));
  }
}

// -- playing -------------------------------------------------------------------------------------------------
function frame(ts) {
  if (!st.playing) return;
  if (st.lastTs !== undefined) st.frames.push(ts - st.lastTs);
  st.lastTs = ts;
  st.i = Math.min(st.rec.n_commands, st.i + Number($("rp-speed").value));
  render();
  if (st.i >= st.rec.n_commands) { pause(); report(); return; }
  requestAnimationFrame(frame);
}
function play() {
  if (!st.rec) return;
  if (st.i >= st.rec.n_commands) st.i = 0;
  st.playing = true; st.lastTs = undefined;
  $("rp-play").textContent = "Pause";
  requestAnimationFrame(frame);
}
function pause() { st.playing = false; $("rp-play").textContent = "Play"; }
function report() {
  if (st.frames.length < 2) return;
  const f = [...st.frames].sort((a, b) => a - b), d = [...st.draws].sort((a, b) => a - b);
  const q = (a, p) => a[Math.min(a.length - 1, Math.floor(p * a.length))];
  window.replayFrameStats = { frames: f.length, median_ms: q(f, 0.5), p95_ms: q(f, 0.95), max_ms: f[f.length - 1],
    over_20ms: f.filter((v) => v > 20).length, draw_median_ms: q(d, 0.5), draw_p95_ms: q(d, 0.95), draw_max_ms: d[d.length - 1] };
  const s = window.replayFrameStats;
  $("rp-fps").textContent = `${s.frames} frames: median ${s.median_ms.toFixed(1)} ms (${(1000 / s.median_ms).toFixed(0)}/s), ` +
    `p95 ${s.p95_ms.toFixed(1)} ms; drawing median ${s.draw_median_ms.toFixed(2)} ms`;
}
function go(i) { pause(); st.i = Math.max(0, Math.min(st.rec.n_commands, i)); render(); }

async function load(extra) {
  pause();
  if (!extra && $("rp-source").value === "results" && st.fromResults) extra = st.fromResults;  // the stored game again
  if (extra && extra.source === "results") st.fromResults = extra;
  const body = extra || { problem: Number($("rp-problem").value), seed: Number($("rp-seed").value), source: $("rp-source").value };
  if (!extra && body.source === "text") body.solution = $("rp-text").value;
  try {
    const j = await runJob("/api/hextris/replay", body, (job) => say($("rp-message"), `replaying on the server: ${job.phase}` +
      (job.progress && job.progress.of ? ` (${Math.round(100 * job.progress.commands / job.progress.of)} %)` : "")));
    st.rec = j.result;
    prepare(st.rec);
    st.i = 0; st.frames = []; st.draws = [];
    $("rp-scrub").max = st.rec.n_commands;
    for (const id of ["rp-play", "rp-back", "rp-step", "rp-unit", "rp-end", "rp-scrub"]) $(id).disabled = false;
    render();
    const r = st.rec;
    say($("rp-message"), `Problem ${r.problem.id} seed ${r.seed} (${r.source}${r.tag ? ", " + r.tag : ""}): ` +
      `${r.n_commands.toLocaleString()} commands, ${r.final.units_locked} units; final score ${r.final.total.toLocaleString()} (${r.final.end})` +
      (r.error_at ? ` — the game errs at command ${r.error_at}` : ""), r.error_at ? "error" : "ok");
    showInToolbar(r.problem.id, r.seed, r.source);
    document.body.dataset.replayLoaded = `${r.problem.id}:${r.seed}`;
  } catch (e) { say($("rp-message"), e.message, "error"); }
}

// The toolbar names the game on the board (a replay opened from the results browser included), never an earlier one.
function showInToolbar(problemId, seed, source) {
  const sel = $("rp-problem");
  if (![...sel.options].some((o) => o.value === String(problemId))) {
    sel.add(new Option(`${problemId}: uploaded problem`, problemId));
  }
  sel.value = String(problemId);
  if (st.problems[problemId] && st.problems[problemId].id === problemId) fillSeeds();
  else { $("rp-seed").textContent = ""; }
  if (![...$("rp-seed").options].some((o) => o.value === String(seed))) $("rp-seed").add(new Option(String(seed), seed));
  $("rp-seed").value = String(seed);
  if (source === "results" || source === "reference") {
    let opt = [...$("rp-source").options].find((o) => o.value === source);
    if (!opt && source === "results") {  // a stored game: said so, never "reference solution" left from before
      opt = new Option("stored game (from Results)", "results");
      $("rp-source").add(opt);
    }
    if (opt) $("rp-source").value = source;
  }
}

async function fillSeeds() {
  const p = st.problems[Number($("rp-problem").value)];
  const sel = $("rp-seed");
  sel.textContent = "";
  if (!p) return;
  for (const s of p.seeds) sel.add(new Option(s + (p.reference_seeds.includes(s) ? " (reference)" : ""), s));
}

export async function start() {
  const { problems } = await api("/api/hextris/problems");
  st.problems = problems;
  for (const p of problems) $("rp-problem").add(new Option(`${p.id}: ${p.width}×${p.height}, ${p.source_length} units, ${p.seeds.length} seed${p.seeds.length === 1 ? "" : "s"}`, p.id));
  $("rp-problem").value = "24";
  fillSeeds();
  $("rp-problem").addEventListener("change", fillSeeds);
  for (const id of ["rp-problem", "rp-seed"]) {  // another game chosen: the stored one no longer applies
    $(id).addEventListener("change", () => { if ($("rp-source").value === "results") $("rp-source").value = "reference"; });
  }
  $("rp-source").addEventListener("change", () => { $("rp-text").hidden = $("rp-source").value !== "text"; });
  $("rp-file").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    $("rp-source").value = "text"; $("rp-text").hidden = false; $("rp-text").value = await f.text();
  });
  $("rp-load").addEventListener("click", () => load());
  $("rp-play").addEventListener("click", () => (st.playing ? pause() : play()));
  $("rp-step").addEventListener("click", () => go(st.i + 1));
  $("rp-back").addEventListener("click", () => go(st.i - 1));
  $("rp-end").addEventListener("click", () => go(st.rec.n_commands));
  $("rp-unit").addEventListener("click", () => {
    const k = upperBound(st.rec.lockCmd, st.i);
    go(k < st.rec.lockCmd.length ? st.rec.lockCmd[k] : st.rec.n_commands);
  });
  $("rp-scrub").addEventListener("input", () => go(Number($("rp-scrub").value)));
  // a stored game from the results browser: #replay?path=...&run=...&row=...
  const q = new URLSearchParams(location.hash.split("?")[1] || "");
  if (q.get("path")) await load({ source: "results", path: q.get("path"), run: q.get("run"), row: Number(q.get("row")) });
  window.addEventListener("hashchange", () => {
    const h = new URLSearchParams(location.hash.split("?")[1] || "");
    if (location.hash.startsWith("#replay") && h.get("path")) load({ source: "results", path: h.get("path"), run: h.get("run"), row: Number(h.get("row")) });
  });
}
