// Page switching by the address's #fragment; each page module starts on its first visit.
import { api } from "./api.js";

const pages = {
  workshop: () => import("./workshop.js"),
  replay: () => import("./replay.js"),
  sliding: () => import("./sliding.js"),
  results: () => import("./results.js"),
};
const started = {};

async function show() {
  const name = (location.hash.slice(1).split("?")[0]) || "workshop";
  const page = pages[name] ? name : "workshop";
  for (const p of Object.keys(pages)) document.getElementById("page-" + p).hidden = p !== page;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.page === page);
  if (!started[page]) started[page] = pages[page]().then((m) => m.start());
  await started[page];
  document.body.dataset.page = page;
}
window.addEventListener("hashchange", show);
show();

async function status() {
  try {
    const [h, w] = await Promise.all([api("/api/health"), api("/api/workers")]);
    const ready = w.workers.filter((x) => x.state === "idle" || x.state === "busy").length;
    const warming = w.workers.filter((x) => x.state === "warming" || x.state === "starting").length;
    document.getElementById("server-status").textContent =
      `puzzlebatch ${h.version} · workers ready ${ready}/${w.workers.length}`;
    const line = document.getElementById("warming");
    line.hidden = warming === 0;  // goes away once every worker has compiled its kernels
    if (warming) line.textContent = `Warming up kernels (${warming} of ${w.workers.length} worker` +
      `${w.workers.length > 1 ? "s" : ""}): the first search waits for them; later ones start at once.`;
  } catch (e) {
    document.getElementById("server-status").textContent = "server not answering";
  }
}
status();
setInterval(status, 2000);
