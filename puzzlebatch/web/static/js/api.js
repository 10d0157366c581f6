// The JSON API: one client id per tab (the server runs one job per client at a time), one-line errors.
const key = "puzzlebatch-client";
export const clientId = sessionStorage.getItem(key) || (() => {
  const id = (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2)).replace(/[^A-Za-z0-9-]/g, "");
  sessionStorage.setItem(key, id);
  return id;
})();

export class ApiError extends Error {}

export async function api(path, body, method) {
  const init = { method: method || (body === undefined ? "GET" : "POST"), headers: { "x-client-id": clientId } };
  if (body !== undefined) { init.headers["content-type"] = "application/json"; init.body = JSON.stringify(body); }
  const res = await fetch(path, init);
  let doc = null;
  try { doc = await res.json(); } catch (e) { doc = null; }
  if (!res.ok) throw new ApiError((doc && doc.error) || `${res.status} ${res.statusText}`);
  return doc;
}

// Start a job and follow it: onUpdate(job) at every change; resolves with the finished job (result included).
export async function runJob(path, body, onUpdate) {
  const job = await api(path, body);
  if (onUpdate) onUpdate(job);
  await new Promise((resolve) => {
    const es = new EventSource(`/api/jobs/${job.id}/events`);
    es.onmessage = (ev) => {
      const j = JSON.parse(ev.data);
      if (onUpdate) onUpdate(j);
      if (["done", "failed", "cancelled"].includes(j.status)) { es.close(); resolve(); }
    };
    es.onerror = () => { es.close(); resolve(); };
  });
  const done = await api(`/api/jobs/${job.id}`);
  if (done.status === "failed") throw new ApiError(done.error);
  if (done.status === "cancelled") throw new ApiError("cancelled");
  if (done.status !== "done") throw new ApiError(`job ${done.status}`);
  return done;
}

export function cancelJob(id) { return api(`/api/jobs/${id}`, undefined, "DELETE"); }

export function say(el, text, kind) {
  el.textContent = text || "";
  el.className = "message" + (kind ? " " + kind : "");
}

export function svgEl(tag, attrs, parent) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// A piece's colour: the one the server sends (puzzlebatch/results/colours.py, the pictures' table), else its name
// when that is a CSS colour (IQ Puzzler Pro's pieces), else the palette (PALETTE in colours.py, the same list).
const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
  "#9c755f", "#bab0ac", "#003f5c", "#17becf", "#7f3c8d", "#a0cbe8", "#bcbd22", "#8cd17d"];
export function pieceColour(name, index, given) {
  if (given) return given;
  if (/^[a-z]+$/i.test(name) && CSS.supports("color", name)) return name;
  return PALETTE[index % PALETTE.length];
}
