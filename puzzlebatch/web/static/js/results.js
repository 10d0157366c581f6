// Results browser: the .h5 files under the served folder, their runs, pages of items, CSV, stored solutions drawn.
import { api, say, svgEl, pieceColour } from "./api.js";
import { view3d } from "./view3d.js";

const $ = (id) => document.getElementById(id);
const st = { file: null, run: null, offset: 0, limit: 25, desc: null };
const q = (o) => new URLSearchParams(o).toString();
const fmt = (v) => (v === null || v === undefined ? "–" : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : String(v));

function table(parent, headers, rows, onRow) {
  const t = document.createElement("table");
  t.className = "grid";
  const tr = t.insertRow();
  for (const h of headers) { const th = document.createElement("th"); th.textContent = h; tr.appendChild(th); }
  rows.forEach((r, k) => {
    const row = t.insertRow();
    if (onRow) { row.className = "selectable"; row.addEventListener("click", () => onRow(k)); }
    for (const v of r) {
      const td = row.insertCell();
      if (typeof v === "object" && v !== null) jsonCell(td, v); else td.textContent = fmt(v);
      if (td.textContent.length > 40) td.classList.add("long");  // wraps anywhere: a solution, a chain
    }
  });
  parent.appendChild(t);
  return t;
}

// A parameters or result object: its first few plain values in one line, the whole object one click away.
function jsonCell(td, v) {
  td.className = "json";
  if (Array.isArray(v) && v.length <= 16 && v.every((x) => x === null || typeof x !== "object")) {
    td.textContent = JSON.stringify(v);
    return;
  }
  const plain = Object.entries(v).filter(([, x]) => x === null || typeof x !== "object");
  if (plain.length <= 3 && plain.length === Object.keys(v).length) { td.textContent = JSON.stringify(v); return; }
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = Array.isArray(v) ? `${v.length} values: ${JSON.stringify(v.slice(0, 8)).slice(0, -1)}, …]`
    : plain.slice(0, 3).map(([k, x]) => `${k}: ${fmt(x)}`).join(", ") + " …";
  const pre = document.createElement("pre");
  pre.textContent = JSON.stringify(v, null, 1);
  details.append(summary, pre);
  td.appendChild(details);
}

async function files() {
  const ul = $("rs-files");
  ul.textContent = "";
  const { files, truncated } = await api("/api/results/files");
  if (!files.length) { const li = document.createElement("li"); li.className = "muted"; li.textContent = "no .h5 files in the results folder"; ul.appendChild(li); }
  for (const f of files) {
    const li = document.createElement("li");
    li.dataset.path = f.path;
    li.textContent = `${f.path}  (${(f.bytes / 1024).toFixed(0)} KB)`;
    li.addEventListener("click", () => openFile(f.path));
    ul.appendChild(li);
  }
  if (truncated) { const li = document.createElement("li"); li.className = "muted"; li.textContent = "(more files not listed)"; ul.appendChild(li); }
}

async function openFile(path) {
  for (const li of document.querySelectorAll("#rs-files li")) li.classList.toggle("selected", li.dataset.path === path);
  st.file = path; st.run = null;
  $("rs-items").textContent = ""; $("rs-drawing").textContent = ""; $("rs-runs").textContent = "";
  try {
    const d = await api("/api/results/file?" + q({ path }));
    st.desc = d;
    $("rs-title").textContent = `${path}: ${d.runs.length} run${d.runs.length === 1 ? "" : "s"} (puzzlebatch ${d.creator_version}, ${d.created})`;
    table($("rs-runs"), ["run", "family", "verb", "status", "backend", "items", "seconds", "started", "parameters", "result"],
      d.runs.map((r) => [r.id, r.family, r.algorithm, r.status, r.backend, r.n_committed, r.seconds, r.started, r.params, r.result]),
      (k) => openRun(d.runs[k].id, 0)).dataset.table = "runs";
    say($("rs-message"), "");
  } catch (e) { say($("rs-message"), e.message, "error"); }
}

async function openRun(run, offset) {
  st.run = run; st.offset = offset;
  const box = $("rs-items");
  box.textContent = "";
  try {
    const page = await api("/api/results/items?" + q({ path: st.file, run, offset, limit: st.limit }));
    const info = st.desc.runs.find((r) => r.id === run);
    const bar = document.createElement("div");
    bar.className = "toolbar";
    bar.innerHTML = `<strong>run ${run}</strong><span class="muted">rows ${page.total ? offset + 1 : 0}–${offset + page.rows.length} of ${page.total}</span>`;
    const prev = document.createElement("button"); prev.textContent = "◀"; prev.disabled = offset === 0;
    prev.addEventListener("click", () => openRun(run, Math.max(0, offset - st.limit)));
    const next = document.createElement("button"); next.textContent = "▶"; next.disabled = offset + page.rows.length >= page.total;
    next.addEventListener("click", () => openRun(run, offset + st.limit));
    const csv = document.createElement("a"); csv.textContent = "Download CSV"; csv.href = "/api/results/items.csv?" + q({ path: st.file, run });
    bar.append(prev, next, csv);
    if (info.drawable) { const s = document.createElement("span"); s.className = "muted"; s.textContent = `click a row to draw it (${info.drawable})`; bar.append(s); }
    box.appendChild(bar);
    if (page.columns.length) {
      table(box, ["row", ...page.columns], page.rows.map((r, k) => [offset + k + 1, ...r]),
        info.drawable ? (k) => drawRow(run, offset + k) : null).dataset.table = "items";
    } else if (info.drawable === "cubes") {
      drawRow(run, 0);
    }
    if (info.drawable && page.rows.length) drawRow(run, offset);
  } catch (e) { say($("rs-message"), e.message, "error"); }
}

let drawing = 0;  // the latest drawRow call: an earlier one whose answer comes later draws nothing

async function drawRow(run, row) {
  const box = $("rs-drawing");
  const mine = ++drawing;
  try {
    const s = await api("/api/results/solution?" + q({ path: st.file, run, row }));
    if (mine !== drawing) return;
    box.textContent = "";
    box.className = "drawing";
    const h = document.createElement("div"); h.className = "muted"; h.textContent = `${s.family} ${s.algorithm}, row ${row + 1} of ${s.rows}`;
    box.appendChild(h);
    ({ polyomino: drawPolyomino, snake: drawSnake, cubes: drawCubes, sliding: drawSliding, hextris: drawHextris })[s.kind](box, s, run, row);
    box.dataset.kind = s.kind;
  } catch (e) { say($("rs-message"), e.message, "error"); }
}

function drawPolyomino(box, s) {
  if (s.image) {  // a large tiling: one picture drawn on the server (overview and a window), never a cell each
    const img = document.createElement("img");
    img.src = s.image; img.alt = s.text || "tiling"; img.style.maxWidth = "100%";
    const cap = document.createElement("div"); cap.className = "muted"; cap.textContent = s.text || "";
    box.appendChild(cap); box.appendChild(img);
    return;
  }
  const [w, h] = s.size, d = s.size[2] || 1, C = 30;
  const colour = new Map(s.pieces.map((p, i) => [p, pieceColour(p, i, (s.colours || [])[i])]));
  const own = new Map();
  for (const p of s.placements) for (const c of p.cells) own.set(c.join(","), p);
  for (let z = 0; z < d; z++) {
    const svg = svgEl("svg", { width: w * C + 2, height: h * C + 2 }, box);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const k = (s.size.length === 3 ? [x, y, z] : [x, y]).join(",");
      const p = own.get(k);
      svgEl("rect", { x: 1 + x * C, y: 1 + y * C, width: C, height: C, class: "cell", fill: p ? colour.get(p.piece) : "#3b3f47",
                      "data-owner": p ? p.piece : "" }, svg);
      for (const [dx, dy, x1, y1, x2, y2] of [[1, 0, 1, 0, 1, 1], [0, 1, 0, 1, 1, 1], [-1, 0, 0, 0, 0, 1], [0, -1, 0, 0, 1, 0]]) {
        const n = own.get((s.size.length === 3 ? [x + dx, y + dy, z] : [x + dx, y + dy]).join(","));
        if (p && n !== p) svgEl("line", { x1: 1 + (x + x1) * C, y1: 1 + (y + y1) * C, x2: 1 + (x + x2) * C, y2: 1 + (y + y2) * C, stroke: "#1d2330", "stroke-width": 2 }, svg);
      }
    }
  }
  if (d > 1) {
    view3d(box, s.placements.flatMap((p) => p.cells.map((c) => ({ cell: c, colour: colour.get(p.piece) }))), { title: "3D view" });
  }
}

function drawSnake(box, s) {
  const n = s.cells.length;
  const cubes = s.cells.map((c, k) => ({ cell: c, colour: `hsl(${Math.round(260 * k / Math.max(1, n - 1))}, 65%, 55%)` }));
  view3d(box, cubes, { path: s.cells, title: `${s.chain || "chain"} in ${s.box.join("x")}` });
}

function drawCubes(box, s) {
  const cubes = s.assembly.map((a) => ({ cell: a.cell, colour: pieceColour("", a.cube), faces: a.faces }));
  view3d(box, cubes, { title: `${s.assembly.length} connector cubes (face values: + male, − female)` });
}

function drawSliding(box, s) {
  const [r, c] = s.size, C = 44;
  let tiles = [...s.tiles], step = 0;
  const svg = svgEl("svg", { width: c * C + 2, height: r * C + 2 }, box);
  const label = document.createElement("div"); label.className = "muted"; box.appendChild(label);
  const paint = () => {
    svg.textContent = "";
    tiles.forEach((t, k) => {
      if (!t) return;
      const x = 1 + (k % c) * C, y = 1 + Math.floor(k / c) * C;
      svgEl("rect", { x: x + 2, y: y + 2, width: C - 4, height: C - 4, rx: 5, fill: "#2457c5" }, svg);
      const tx = svgEl("text", { x: x + C / 2, y: y + C / 2 + 6, "text-anchor": "middle", fill: "#fff", "font-size": 17 }, svg); tx.textContent = t;
    });
    label.textContent = `move ${step} of ${s.moves.length} (goal ${s.goal})`;
  };
  paint();
  const timer = setInterval(() => {
    if (!svg.isConnected || step >= s.moves.length) { clearInterval(timer); return; }
    const t = s.moves[step++], a = tiles.indexOf(t), b = tiles.indexOf(0);
    tiles[b] = t; tiles[a] = 0; paint();
  }, 400);
}

function drawHextris(box, s, run, row) {
  const a = document.createElement("a");
  a.href = "#replay?" + q({ path: st.file, run, row });
  a.textContent = `Replay problem ${s.problemId} seed ${s.seed} (${s.solution_chars.toLocaleString()} commands)`;
  box.appendChild(a);
}

export async function start() {
  $("rs-refresh").addEventListener("click", files);
  await files();
}
