package live

// pageHTML is the live page: self-contained (inline style, script and SVG;
// no request but to its own server), redrawn from /live.json every second
// without reloading. Every string from the study reaches the page as JSON
// and is set with textContent or setAttribute, never parsed as HTML; the
// template escapes the title.
const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · fairbench live</title>
<style>
:root { --fg:#1d232a; --muted:#5b6570; --line:#d8dde3; --bg:#fff; --accent:#2563eb; --warn:#b45309; --bad:#b91c1c; }
body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 1180px; padding: 1rem 1.25rem 3rem; }
h1 { font-size: 1.35rem; margin: .2rem 0 .6rem; } h2 { font-size: 1.05rem; margin: 1.4rem 0 .5rem; }
.muted { color: var(--muted); } .bad { color: var(--bad); } .warnc { color: var(--warn); }
#bar { height: 10px; background: #eef1f4; border-radius: 5px; overflow: hidden; margin: .4rem 0; }
#bar div { height: 100%; background: var(--accent); width: 0; transition: width .4s; }
.stats { display: flex; flex-wrap: wrap; gap: .4rem 1.6rem; }
.stats b { font-variant-numeric: tabular-nums; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 1rem; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: .4rem .6rem; }
figcaption { font-size: .85rem; color: var(--muted); }
svg { width: 100%; height: auto; display: block; }
svg text { font-size: 11px; fill: var(--muted); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
ul#warnings li { margin: .15rem 0; }
iframe#report { width: 100%; height: 85vh; border: 1px solid var(--line); border-radius: 6px; }
.legend span { margin-right: .8rem; font-size: .85rem; } .legend i { display: inline-block; width: .8rem; height: .2rem; vertical-align: middle; margin-right: .25rem; }
</style></head>
<body>
<h1>{{.Title}}</h1>
<p class="muted" id="status">connecting…</p>
{{if .TokenRequired}}<p class="muted" id="tokennote">This page is served beyond this machine and requires its token: every request carries it (?token=… or the X-Fairbench-Token header).</p>{{end}}
<div id="bar"><div></div></div>
<div class="stats">
 <span>cells <b id="done">0</b> done of <b id="total">0</b></span>
 <span><b id="running">0</b> running</span>
 <span><b id="left">0</b> left</span>
 <span id="skippedwrap" hidden><b id="skipped">0</b> skipped</span>
 <span id="failedwrap" hidden class="bad"><b id="failed">0</b> failed</span>
 <span>elapsed <b id="elapsed">–</b></span>
 <span>time left <b id="eta">–</b></span>
</div>
<h2>Running cell</h2>
<p id="cell" class="muted">none yet</p>
<div class="charts">
 <figure><figcaption>Throughput, operations per second</figcaption><svg id="chart-rate" data-chart="rate" viewBox="0 0 360 170" role="img" aria-label="throughput per second"></svg></figure>
 <figure><figcaption>Latency, ms <span class="legend"><span><i style="background:#2563eb"></i>p50</span><span><i style="background:#d97706"></i>p95</span><span><i style="background:#dc2626"></i>p99</span></span></figcaption><svg id="chart-latency" data-chart="latency" viewBox="0 0 360 170" role="img" aria-label="latency percentiles per second"></svg></figure>
 <figure><figcaption>Errors per reading</figcaption><svg id="chart-errors" data-chart="errors" viewBox="0 0 360 170" role="img" aria-label="errors per second"></svg></figure>
</div>
<h2>Finished cells</h2>
<table><thead><tr><th>Cell</th><th>Headline</th><th>Repetitions</th></tr></thead><tbody id="scenarios"><tr><td colspan="3" class="muted">none yet</td></tr></tbody></table>
<h2>Methodology warnings</h2>
<ul id="warnings"><li class="muted">none so far</li></ul>
<div id="final"></div>
<script>
"use strict";
(() => {
const token = new URLSearchParams(location.search).get("token");
const q = token ? "?token=" + encodeURIComponent(token) : "";
const NS = "http://www.w3.org/2000/svg";
const $ = id => document.getElementById(id);
let version = -1, reportShown = false, failures = 0;

function el(tag, attrs, text) {
	const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
	for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
	if (text !== undefined) e.textContent = text;
	return e;
}
function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
function dur(s) {
	if (s === null || s === undefined || !isFinite(s)) return "–";
	s = Math.max(0, Math.round(s));
	if (s < 60) return s + " s";
	if (s < 3600) return Math.floor(s / 60) + " min " + String(s % 60).padStart(2, "0") + " s";
	return Math.floor(s / 3600) + " h " + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + " min";
}
function num(v) {
	if (!isFinite(v)) return "–";
	if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
	return v.toLocaleString("en-US", {maximumSignificantDigits: 4});
}

// chart draws one line per series of points into svg, scaled to the largest value.
function chart(svg, points, series) {
	clear(svg);
	const W = 360, H = 170, L = 46, R = 8, T = 8, B = 22;
	// Time starts where the first reading's window began (one reading earlier).
	const step = points.length > 1 ? points[1].t - points[0].t : 1;
	let ymax = 0, t0 = points.length ? Math.max(0, points[0].t - step) : 0, t1 = points.length ? points[points.length - 1].t : 1;
	for (const p of points) for (const s of series) ymax = Math.max(ymax, p[s.key] || 0);
	if (ymax <= 0) ymax = 1;
	if (t1 <= t0) t1 = t0 + 1;
	const x = t => L + (t - t0) / (t1 - t0) * (W - L - R), y = v => T + (1 - v / ymax) * (H - T - B);
	svg.appendChild(el("svg:line", {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#d8dde3"}));
	svg.appendChild(el("svg:line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#d8dde3"}));
	svg.appendChild(el("svg:text", {x: L - 4, y: T + 9, "text-anchor": "end"}, num(ymax)));
	svg.appendChild(el("svg:text", {x: L - 4, y: H - B, "text-anchor": "end"}, "0"));
	svg.appendChild(el("svg:text", {x: L, y: H - 6}, dur(t0)));
	svg.appendChild(el("svg:text", {x: W - R, y: H - 6, "text-anchor": "end"}, dur(t1)));
	const warm = points.filter(p => p.warmup);
	if (warm.length) {
		const wx = x(warm[warm.length - 1].t);
		svg.appendChild(el("svg:rect", {x: L, y: T, width: Math.max(0, wx - L), height: H - T - B, fill: "#f3f4f6"}));
		svg.appendChild(el("svg:text", {x: L + 3, y: T + 20}, "warm-up"));
	}
	for (const s of series) {
		const pts = points.map(p => x(p.t).toFixed(1) + "," + y(p[s.key] || 0).toFixed(1)).join(" ");
		svg.appendChild(el("svg:polyline", {points: pts, fill: "none", stroke: s.color, "stroke-width": 1.6, "stroke-linejoin": "round"}));
	}
	svg.setAttribute("data-points", String(points.length));
}

function render(s) {
	const c = s.counts;
	for (const k of ["done", "running", "left", "total", "skipped", "failed"]) $(k).textContent = c[k];
	$("skippedwrap").hidden = !c.skipped;
	$("failedwrap").hidden = !c.failed;
	const denom = Math.max(1, c.total - c.skipped);
	$("bar").firstElementChild.style.width = (100 * c.done / denom).toFixed(1) + "%";
	$("elapsed").textContent = dur(s.elapsed_s);
	$("eta").textContent = s.state === "running" ? dur(s.eta_s) : "–";
	let status = s.state === "running" ? "running" : "study " + s.state;
	if (s.error) status += ": " + s.error;
	$("status").textContent = status + " · updated " + new Date().toLocaleTimeString();
	$("status").className = s.state === "failed" || s.state === "interrupted" ? "bad" : "muted";

	const r = s.running;
	if (r) {
		let line = "cell " + r.index + " of " + c.total + ": " + r.label + " · rep " + r.rep + " · " + r.phase;
		if (s.state === "running") line += " · " + dur(r.elapsed_s) + " since it began" + (r.planned_s > 0 ? " (warm-up and measured phase: " + dur(r.planned_s) + ")" : "");
		if (r.note) line += " · " + r.note;
		$("cell").textContent = line;
		const pts = r.points || [];
		chart($("chart-rate"), pts, [{key: "rate", color: "#2563eb"}]);
		chart($("chart-latency"), pts, [{key: "p50_ms", color: "#2563eb"}, {key: "p95_ms", color: "#d97706"}, {key: "p99_ms", color: "#dc2626"}]);
		chart($("chart-errors"), pts, [{key: "errors", color: "#b91c1c"}]);
	}

	const tb = $("scenarios");
	if ((s.scenarios || []).length) {
		clear(tb);
		for (const sc of s.scenarios) {
			const tr = el("tr");
			tr.appendChild(el("td", {}, sc.label));
			tr.appendChild(el("td", {}, sc.metric + (sc.higher_is_better ? "" : " (lower is better)")));
			const td = el("td", {"class": "num"});
			td.textContent = sc.reps.map(p => "rep " + p.rep + ": " + (p.status === "ok" ? num(p.value) : p.status)).join(" · ");
			tr.appendChild(td);
			tb.appendChild(tr);
		}
	}
	const ul = $("warnings");
	if ((s.warnings || []).length) {
		clear(ul);
		for (const w of s.warnings) {
			const li = el("li", {"class": "warnc"});
			li.appendChild(el("b", {}, w.cell + ": "));
			li.appendChild(document.createTextNode(w.text));
			ul.appendChild(li);
		}
		if (s.more_warnings) ul.appendChild(el("li", {"class": "muted"}, s.more_warnings + " more not listed"));
	}
	if (s.report && !reportShown) {
		reportShown = true;
		const f = $("final");
		f.appendChild(el("h2", {}, "Report"));
		f.appendChild(el("iframe", {id: "report", src: "report" + q, title: "the study's report"}));
		f.scrollIntoView({behavior: "smooth"});
	}
}

async function poll() {
	try {
		const res = await fetch("live.json" + q, {cache: "no-store", headers: token ? {"X-Fairbench-Token": token} : {}});
		if (!res.ok) throw new Error("HTTP " + res.status);
		const s = await res.json();
		failures = 0;
		if (s.version !== version) { version = s.version; render(s); }
		if (s.state !== "running" && reportShown) return; // nothing more will change
	} catch (e) {
		failures++;
		$("status").textContent = (version < 0 ? "cannot reach the run: " : "the run stopped answering (it may have ended): ") + e.message;
		$("status").className = "bad";
		if (failures > 30) return;
	}
	setTimeout(poll, 1000);
}
poll();
})();
</script>
</body></html>
`
