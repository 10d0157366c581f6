// A 3D view of unit cubes as SVG: exposed faces, painter's order, turned by dragging (or the arrow buttons).
import { svgEl } from "./api.js";

// Face normals in the data order of connector cubes: -Y, +Z, +X, -Z, -X, +Y.
const FACES = [[0, -1, 0], [0, 0, 1], [1, 0, 0], [0, 0, -1], [-1, 0, 0], [0, 1, 0]];

function corners(n) {  // the unit square of the face with outward normal n, centred on the cube's centre
  const [a, b] = [0, 1, 2].filter((i) => n[i] === 0);
  const out = [];
  for (const [u, v] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
    const p = [0, 0, 0];
    p[a] = u * 0.5; p[b] = v * 0.5;
    for (let i = 0; i < 3; i++) if (n[i]) p[i] = n[i] * 0.5;
    out.push(p);
  }
  return out;
}

// cubes: [{cell: [x, y, z], colour, faces?: [6 labels]}]; path: cube centres to join by a line (a snake's chain).
export function view3d(parent, cubes, { path = null, size = 420, title = "" } = {}) {
  const wrap = document.createElement("div");
  wrap.className = "view3d";
  parent.appendChild(wrap);
  const svg = svgEl("svg", { width: size, height: size, viewBox: `0 0 ${size} ${size}`, "data-view": "3d" }, wrap);
  const bar = document.createElement("div");
  bar.className = "toolbar";
  wrap.appendChild(bar);
  let yaw = -0.6, pitch = 0.5;
  const occupied = new Set(cubes.map((c) => c.cell.join(",")));
  const lo = [0, 1, 2].map((i) => Math.min(...cubes.map((c) => c.cell[i])));
  const hi = [0, 1, 2].map((i) => Math.max(...cubes.map((c) => c.cell[i])) + 1);
  const mid = lo.map((v, i) => (v + hi[i]) / 2);
  const span = Math.max(...hi.map((v, i) => v - lo[i]));
  const scale = size / (span * 1.9);

  function project(p) {
    const x = p[0] - mid[0], y = p[1] - mid[1], z = p[2] - mid[2];
    const x1 = x * Math.cos(yaw) - y * Math.sin(yaw), y1 = x * Math.sin(yaw) + y * Math.cos(yaw);
    const y2 = y1 * Math.cos(pitch) - z * Math.sin(pitch), z2 = y1 * Math.sin(pitch) + z * Math.cos(pitch);
    return [size / 2 + x1 * scale, size / 2 - z2 * scale, y2];
  }
  function render() {
    svg.textContent = "";
    if (title) { const t = svgEl("text", { x: 8, y: 18, "font-size": 13, fill: "#444" }, svg); t.textContent = title; }
    const faces = [];
    for (const c of cubes) {
      FACES.forEach((n, f) => {
        if (occupied.has([c.cell[0] + n[0], c.cell[1] + n[1], c.cell[2] + n[2]].join(","))) return;
        const centre = c.cell.map((v) => v + 0.5);
        const pts = corners(n).map((p) => project([centre[0] + p[0], centre[1] + p[1], centre[2] + p[2]]));
        const nc = project([centre[0] + n[0], centre[1] + n[1], centre[2] + n[2]]), cc = project(centre);
        if (nc[2] - cc[2] > 0.01) return;  // facing away
        const fc = project(centre.map((v, i) => v + n[i] * 0.5));
        faces.push({ pts, depth: fc[2], c, f, fc, light: 0.75 + 0.25 * Math.max(0, -(nc[2] - cc[2])) });
      });
    }
    faces.sort((a, b) => b.depth - a.depth);
    for (const fa of faces) {
      svgEl("polygon", { points: fa.pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" "), fill: fa.c.colour,
                         "fill-opacity": path ? 0.55 : 0.95, stroke: "#222", "stroke-width": 0.8,
                         style: `filter: brightness(${fa.light.toFixed(2)})` }, svg);
      if (fa.c.faces) {
        const v = fa.c.faces[fa.f];
        const t = svgEl("text", { x: fa.fc[0], y: fa.fc[1] + 4, "text-anchor": "middle", "font-size": Math.max(9, scale * 0.3),
                                  fill: v > 0 ? "#111" : v < 0 ? "#b3261e" : "#777", "font-weight": 600 }, svg);
        t.textContent = v > 0 ? `+${v}` : String(v);
      }
    }
    if (path) {
      const pts = path.map((p) => project(p.map((v) => v + 0.5)));
      svgEl("polyline", { points: pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" "), fill: "none",
                          stroke: "#1d2330", "stroke-width": 3, "stroke-linejoin": "round" }, svg);
      for (const [k, label] of [[0, "1"], [pts.length - 1, "N"]]) {
        svgEl("circle", { cx: pts[k][0], cy: pts[k][1], r: 8, fill: "#fff", stroke: "#1d2330", "stroke-width": 2 }, svg);
        const t = svgEl("text", { x: pts[k][0], y: pts[k][1] + 4, "text-anchor": "middle", "font-size": 10 }, svg);
        t.textContent = label;
      }
    }
  }
  let drag = null;
  svg.addEventListener("pointerdown", (e) => { drag = [e.clientX, e.clientY, yaw, pitch]; svg.setPointerCapture(e.pointerId); });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    yaw = drag[2] + (e.clientX - drag[0]) * 0.01;
    pitch = Math.max(-1.5, Math.min(1.5, drag[3] + (e.clientY - drag[1]) * 0.01));
    render();
  });
  svg.addEventListener("pointerup", () => { drag = null; });
  for (const [label, dy, dp] of [["⟲", -0.3, 0], ["⟳", 0.3, 0], ["▲", 0, -0.2], ["▼", 0, 0.2]]) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label;
    b.addEventListener("click", () => { yaw += dy; pitch = Math.max(-1.5, Math.min(1.5, pitch + dp)); render(); });
    bar.appendChild(b);
  }
  const hint = document.createElement("span");
  hint.className = "muted"; hint.textContent = "drag to turn";
  bar.appendChild(hint);
  render();
  return { render, turn: (dy) => { yaw += dy; render(); } };
}
