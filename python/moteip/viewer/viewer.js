// moteip view: the page's own code. Drawing, scales, axes, zoom, colours and
// layout are D3's (loaded before this script); the data is the JSON that
// python/moteip/viewer/__init__.py put in #data.
"use strict";
(function () {
  const MAX_DRAWN = 4000;        // rectangles per layer in the visible window
  const PACKETS_SHOWN = 400;     // rows of the packet list
  const served = location.protocol.startsWith("http");
  // what the user chose survives a redraw (a live run redraws as its trace grows)
  const state = { cursor: 0, selectedTx: -1, selectedNode: null, flow: 0, playing: null,
                  pktNode: "", pktKind: "", pktFlow: "" };

  // Everything below draws one `data`; a live page calls it again with each update.
  function render(data) {
  if (state.playing) { state.playing.stop(); state.playing = null; }
  for (const id of ["#topology", "#timeline", "#legend", "#energy", "#nodes", "#radio-time",
                    "#packets", "#flow", "#pkt-node", "#pkt-kind", "#pkt-flow"])
    d3.select(id).selectAll("*").remove();
  const tx = data.tx, rx = data.rx;
  const nTx = tx.t.length;
  const nodeIds = data.nodes.map(n => n.id);
  const row = new Map(nodeIds.map((id, i) => [id, i]));

  // receptions of each transmission (index lists), and the longest airtime
  const rxOf = Array.from({ length: nTx }, () => []);
  rx.tx.forEach((t, i) => { if (t >= 0) rxOf[t].push(i); });
  let maxAir = 1;
  for (let i = 0; i < nTx; i++) maxAir = Math.max(maxAir, tx.end[i] - tx.t[i]);
  const tEnd = Math.max(1, (data.result.sim_time_s || 0) * 1e6,
                        nTx ? d3.max(tx.end) : 1, rx.t.length ? d3.max(rx.t) : 1);

  const fmtT = us => (us / 1e6).toFixed(6) + " s";
  const rxName = ["rx-ok", "rx-collision", "rx-corrupt"];
  const rxWord = ["received", "collision", "corrupted"];
  const rxColour = ["#6cbf6c", "#e04b4b", "#9b59b6"];     // as the .rx-* classes in viewer.css

  // ---- header -----------------------------------------------------------------------
  d3.select("#title").text("moteip view: " + data.title);
  const r = data.result, tot = r.totals || {};
  d3.select("#summary").text(
    `${data.nodes.length} nodes, ${r.sim_time_s ?? "?"} s simulated, ${nTx} frames sent` +
    (tot.frames_collided !== undefined ? `, ${tot.frames_collided} collided, ${tot.frames_corrupted || 0} corrupted` : "") +
    (tot.energy_j !== undefined ? `, energy ${(+tot.energy_j).toFixed(3)} J` : ""));
  d3.select("#notes").selectAll("p").data(data.notes).join("p").text(d => d);

  // ---- topology -------------------------------------------------------------------------
  const topo = d3.select("#topology");
  const TW = topo.node().clientWidth || 600;
  const pos = new Map();
  const placed = data.nodes.every(n => n.x !== null && n.x !== undefined);
  if (placed) {
    data.nodes.forEach(n => pos.set(n.id, [n.x, n.y]));
  } else {             // a `links` topology has no positions: lay it out by force
    const sim = d3.forceSimulation(data.nodes.map(n => ({ id: n.id })))
      .force("link", d3.forceLink(data.links.map(l => ({ source: l[0], target: l[1] }))).id(d => d.id).distance(40))
      .force("charge", d3.forceManyBody().strength(-120))
      .force("center", d3.forceCenter(0, 0)).stop();
    for (let i = 0; i < 300; i++) sim.tick();
    sim.nodes().forEach(n => pos.set(n.id, [n.x, n.y]));
  }
  const xs = [...pos.values()].map(p => p[0]), ys = [...pos.values()].map(p => p[1]);
  // (a live run's first trace lines may not have placed a node yet)
  let [x0, x1] = xs.length ? d3.extent(xs) : [0, 1], [y0, y1] = ys.length ? d3.extent(ys) : [0, 1];
  const span = Math.max(x1 - x0, y1 - y0, 1e-9);
  // as tall as the layout needs (a chain is a line), within limits
  const TH = Math.max(120, Math.min(420, (TW - 48) * Math.max(y1 - y0, span * 0.05) / Math.max(x1 - x0, span * 0.05) + 48));
  topo.attr("viewBox", `0 0 ${TW} ${TH}`).style("height", TH + "px");
  const pad = 24, k = Math.min((TW - 2 * pad) / Math.max(x1 - x0, span * 0.05), (TH - 2 * pad) / Math.max(y1 - y0, span * 0.05));
  const px = p => [TW / 2 + (p[0] - (x0 + x1) / 2) * k, TH / 2 + (p[1] - (y0 + y1) / 2) * k];
  const at = new Map([...pos].map(([id, p]) => [id, px(p)]));

  const prrColour = d3.scaleSequential(d3.interpolateRdYlGn).domain([0, 1]);
  const pairs = new Map();          // one line per pair of nodes: the worse direction
  data.links.forEach(([a, b, p]) => {
    const key = a < b ? `${a}-${b}` : `${b}-${a}`;
    const q = pairs.get(key);
    pairs.set(key, { a: Math.min(a, b), b: Math.max(a, b), prr: q ? Math.min(q.prr, p) : p, both: !!q });
  });
  const gLinks = topo.append("g"), gPath = topo.append("g"), gAir = topo.append("g"), gNodes = topo.append("g");
  gLinks.selectAll("line").data([...pairs.values()]).join("line")
    .attr("class", "link")
    .attr("x1", d => at.get(d.a)[0]).attr("y1", d => at.get(d.a)[1])
    .attr("x2", d => at.get(d.b)[0]).attr("y2", d => at.get(d.b)[1])
    .attr("stroke", d => prrColour(d.prr))
    .append("title").text(d => `${d.a} - ${d.b}: PRR ${d.prr.toFixed(3)}${d.both ? "" : " (one way)"}`);
  const radius = Math.max(5, Math.min(13, 200 / Math.sqrt(data.nodes.length + 1)));
  const nodeG = gNodes.selectAll("g").data(data.nodes).join("g")
    .attr("class", "node").attr("transform", d => `translate(${at.get(d.id)})`)
    .on("click", (ev, d) => selectNode(d.id));
  nodeG.append("circle").attr("class", "node").attr("r", radius);
  if (radius >= 8) nodeG.append("text").text(d => d.id);
  nodeG.append("title").text(d => `node ${d.id}` + (placed ? ` (${d.x} m, ${d.y} m)` : ""));
  topo.append("defs").append("marker").attr("id", "arrow").attr("viewBox", "0 0 10 10")
    .attr("markerUnits", "userSpaceOnUse").attr("refX", 10 + 10 * radius / 8).attr("refY", 5)
    .attr("markerWidth", 8).attr("markerHeight", 8)
    .attr("orient", "auto").append("path").attr("d", "M0,0L10,5L0,10z").attr("fill", "#3a6ee8");

  // flows and their paths (from the trace's hop events)
  const flows = (r.flows || []).map((f, i) => ({ i, f }));
  const flowIds = flows.length ? flows.map(x => x.i) : [...new Set(data.hops.map(h => h[0]))];
  d3.select("#flow").selectAll("option").data(flowIds).join("option").attr("value", d => d)
    .text(d => { const f = (r.flows || [])[d]; return f ? `${d}: ${f.type} ${f.src} \u2192 ${f.dst}` : `${d}`; });
  d3.select("#flow").property("value", state.flow)
    .on("change", function () { state.flow = +this.value; drawPath(); });
  function drawPath() {
    const segs = data.hops.filter(h => h[0] === state.flow);
    gPath.selectAll("line").data(segs).join("line")
      .attr("class", d => "path" + (d[3] ? " back" : ""))
      .attr("x1", d => at.get(d[1])[0] + (d[3] ? 3 : -3)).attr("y1", d => at.get(d[1])[1] + (d[3] ? 3 : -3))
      .attr("x2", d => at.get(d[2])[0] + (d[3] ? 3 : -3)).attr("y2", d => at.get(d[2])[1] + (d[3] ? 3 : -3))
      .attr("marker-end", "url(#arrow)");
  }
  drawPath();

  // ---- timeline -------------------------------------------------------------------------
  const kindColour = d3.scaleOrdinal(d3.schemeTableau10).domain(data.kinds);
  const stateColour = d3.scaleOrdinal(d3.schemeSet2);
  const legend = d3.select("#legend");
  // Every label is data from the trace: it goes in as text, never as markup (a crafted trace's
  // state or kind string must not run script), and colours go through style(), not a string.
  const swatch = (sel, colour, label, round) => {
    sel.selectAll("*").remove();
    sel.append("i").style("background", colour).style("border-radius", round ? "6px" : null);
    sel.append(() => document.createTextNode(label));
  };
  legend.selectAll("span.kind").data(data.kinds).join("span").attr("class", "kind")
    .each(function (d) { swatch(d3.select(this), kindColour(d), `sent: ${d}`); });
  legend.selectAll("span.rxk").data([0, 1, 2]).join("span").attr("class", "rxk")
    .each(function (d) { swatch(d3.select(this), rxColour[d], rxWord[d]); });
  if (data.drops.length) swatch(legend.append("span"), "#000", "link failure");
  const stateNames = [...new Set(data.states.map(s => s[2]))];
  legend.selectAll("span.state").data(stateNames).join("span").attr("class", "state")
    .each(function (d) { swatch(d3.select(this), stateColour(d), `radio ${d}`); });
  if (data.others.length) swatch(legend.append("span"), "#555", "other events", true);

  const tl = d3.select("#timeline");
  const M = { l: 58, r: 12, t: 8, b: 26 };
  const rowH = Math.max(9, Math.min(22, 420 / Math.max(1, nodeIds.length)));
  const W = tl.node().clientWidth || 1000, H = M.t + M.b + rowH * nodeIds.length;
  tl.attr("viewBox", `0 0 ${W} ${H}`).attr("height", H);
  const x = d3.scaleLinear().domain([0, tEnd]).range([M.l, W - M.r]);
  let xz = x;
  const y = id => M.t + row.get(id) * rowH;
  tl.append("clipPath").attr("id", "clip").append("rect")
    .attr("x", M.l).attr("y", 0).attr("width", W - M.l - M.r).attr("height", H);
  tl.append("g").selectAll("line").data(nodeIds).join("line").attr("class", "rowline")
    .attr("x1", M.l).attr("x2", W - M.r).attr("y1", d => y(d) + rowH).attr("y2", d => y(d) + rowH);
  tl.append("g").selectAll("text").data(nodeIds).join("text")
    .attr("x", M.l - 6).attr("y", d => y(d) + rowH / 2).attr("text-anchor", "end")
    .attr("dominant-baseline", "central").attr("font-size", Math.min(11, rowH)).text(d => `node ${d}`);
  const axisG = tl.append("g").attr("transform", `translate(0,${H - M.b})`);
  const plot = tl.append("g").attr("clip-path", "url(#clip)");
  const gStates = plot.append("g"), gRx = plot.append("g"), gTx = plot.append("g"),
    gDrops = plot.append("g"), gOthers = plot.append("g"), cursorLine = plot.append("line").attr("class", "cursor");

  // the visible slice of a time-sorted column: [lo, hi)
  function slice(ts, t0, t1, before) {
    return [d3.bisectLeft(ts, t0 - before), d3.bisectRight(ts, t1)];
  }
  const states = (() => {           // radio state intervals per node, if the trace has them
    const out = [], open = new Map();
    data.states.forEach(([t, n, s]) => {
      const o = open.get(n);
      if (o) o.end = t;
      const seg = { t, end: tEnd, node: n, s };
      out.push(seg); open.set(n, seg);
    });
    return out;
  })();

  function draw() {
    const [t0, t1] = xz.domain();
    axisG.call(d3.axisBottom(xz).ticks(8).tickFormat(v => (v / 1e6) + " s"));
    let [a, b] = slice(tx.t, t0, t1, maxAir);
    let note = "";
    if (b - a > MAX_DRAWN) { note = `${b - a} frames in view: showing the first ${MAX_DRAWN}; zoom in to see every one.`; b = a + MAX_DRAWN; }
    const vis = d3.range(a, b).filter(i => tx.end[i] >= t0);
    gTx.selectAll("rect").data(vis, i => i).join("rect")
      .attr("class", i => "frame" + (i === state.selectedTx ? " selected" : ""))
      .attr("x", i => xz(tx.t[i])).attr("width", i => Math.max(1, xz(tx.end[i]) - xz(tx.t[i])))
      .attr("y", i => y(tx.node[i]) + 1).attr("height", rowH * 0.55)
      .attr("fill", i => kindColour(data.kinds[tx.kind[i]]))
      .on("click", (ev, i) => selectTx(i));
    let [c, e] = slice(rx.t, t0, t1 + maxAir, 0);
    if (e - c > MAX_DRAWN) { e = c + MAX_DRAWN; note = note || `Receptions cut to ${MAX_DRAWN}: zoom in.`; }
    const rvis = d3.range(c, e).filter(j => rx.tx[j] >= 0 && tx.t[rx.tx[j]] <= t1);
    gRx.selectAll("rect").data(rvis, j => j).join("rect")
      .attr("class", j => "reception " + rxName[rx.kind[j]])
      .attr("x", j => xz(tx.t[rx.tx[j]])).attr("width", j => Math.max(1, xz(rx.t[j]) - xz(tx.t[rx.tx[j]])))
      .attr("y", j => y(rx.node[j]) + rowH * 0.58).attr("height", rowH * 0.3)
      .on("click", (ev, j) => selectTx(rx.tx[j]));
    gDrops.selectAll("path").data(data.drops.filter(d => d[0] >= t0 && d[0] <= t1).slice(0, MAX_DRAWN)).join("path")
      .attr("class", "drop").attr("d", d => `M${xz(d[0]) - 4},${y(d[1])}h8l-4,${rowH * 0.5}z`)
      .selectAll("title").data(d => [d]).join("title").text(d => `node ${d[1]}: link failure ${JSON.stringify(d[2])}`);
    gStates.selectAll("rect").data(states.filter(s => s.end >= t0 && s.t <= t1).slice(0, MAX_DRAWN)).join("rect")
      .attr("class", "state").attr("x", s => xz(s.t)).attr("width", s => Math.max(0.5, xz(s.end) - xz(s.t)))
      .attr("y", s => y(s.node) + rowH * 0.9).attr("height", rowH * 0.1).attr("fill", s => stateColour(s.s))
      .selectAll("title").data(s => [s]).join("title").text(s => `node ${s.node}: ${s.s}`);
    gOthers.selectAll("circle").data(data.others.filter(d => d[0] >= t0 && d[0] <= t1).slice(0, MAX_DRAWN)).join("circle")
      .attr("class", "event").attr("cx", d => xz(d[0])).attr("cy", d => y(d[1]) + 3).attr("r", 3).attr("fill", "#555")
      .selectAll("title").data(d => [d]).join("title").text(d => `node ${d[1]}: ${d[2]} ${JSON.stringify(d[3])}`);
    d3.select("#timeline-note").text(note);
    cursorLine.attr("x1", xz(state.cursor)).attr("x2", xz(state.cursor)).attr("y1", 0).attr("y2", H - M.b);
  }
  const zoom = d3.zoom().scaleExtent([1, Math.max(2, tEnd / 50)])
    .translateExtent([[M.l, 0], [W - M.r, H]]).extent([[M.l, 0], [W - M.r, H]])
    .on("zoom", ev => { xz = ev.transform.rescaleX(x); draw(); });
  tl.call(zoom).on("dblclick.zoom", null);
  tl.on("click", ev => {
    if (ev.target.closest && ev.target.closest(".frame, .reception")) return;
    setCursor(xz.invert(d3.pointer(ev)[0]), false);
  });
  // start on the first frames, not a whole long run
  if (nTx > MAX_DRAWN / 2) {
    const until = tx.end[Math.floor(MAX_DRAWN / 4)] || tEnd;
    const kz = tEnd / Math.max(1, until);
    tl.call(zoom.transform, d3.zoomIdentity.translate(M.l * (1 - kz), 0).scale(kz));
  }

  // ---- cursor, frames on the air ----------------------------------------------------------
  function onAir(t) {
    const [a, b] = slice(tx.t, t, t, maxAir);
    return d3.range(a, b).filter(i => tx.t[i] <= t && t < tx.end[i]);
  }
  function setCursor(t, keepInView) {
    state.cursor = Math.max(0, Math.min(tEnd, t));
    d3.select("#clock").text("t = " + fmtT(state.cursor));
    d3.select("#slider").property("value", Math.round(1000 * state.cursor / tEnd));
    const air = onAir(state.cursor);
    const senders = new Set(air.map(i => tx.node[i]));
    nodeG.classed("active", d => senders.has(d.id));
    const arrows = air.flatMap(i => rxOf[i].map(j => ({ i, j })));
    gAir.selectAll("line").data(arrows).join("line").attr("class", d => "air " + rxName[rx.kind[d.j]])
      .attr("x1", d => at.get(tx.node[d.i])[0]).attr("y1", d => at.get(tx.node[d.i])[1])
      .attr("x2", d => at.get(rx.node[d.j])[0]).attr("y2", d => at.get(rx.node[d.j])[1]);
    if (keepInView) {
      const [t0, t1] = xz.domain();
      if (state.cursor < t0 || state.cursor > t1) {
        const w = t1 - t0;
        tl.call(zoom.translateTo, x(state.cursor + w * 0.3) , 0);
      }
    }
    draw();
  }
  const step = dir => {
    let i;
    if (dir > 0) i = d3.bisectRight(tx.t, state.cursor);
    else i = d3.bisectLeft(tx.t, state.cursor) - 1;
    if (i >= 0 && i < nTx) selectTx(i);
  };
  d3.select("#first").on("click", () => nTx && selectTx(0));
  d3.select("#prev").on("click", () => step(-1));
  d3.select("#next").on("click", () => step(1));
  d3.select("#slider").on("input", function () { setCursor(this.value / 1000 * tEnd, true); });
  d3.select("#play").on("click", function () {
    if (state.playing) { state.playing.stop(); state.playing = null; this.innerHTML = "&#9654;"; return; }
    this.innerHTML = "&#10074;&#10074;";
    state.playing = d3.interval(() => {
      const i = d3.bisectRight(tx.t, state.cursor);
      if (i >= nTx) { state.playing.stop(); state.playing = null; d3.select("#play").html("&#9654;"); return; }
      selectTx(i);
    }, 120);
  });
  d3.select(window).on("keydown", ev => {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight") step(1);
    else if (ev.key === "ArrowLeft") step(-1);
  });

  // ---- selection and details ------------------------------------------------------------
  const det = d3.select("#details");
  function selectTx(i) {
    state.selectedTx = i;
    d3.selectAll("#packets tr.pkt").classed("selected", k => k === i);
    setCursor(tx.t[i] + Math.min(1, tx.end[i] - tx.t[i]), true);
    det.html("");
    det.append("h3").text(`frame sent by node ${tx.node[i]}`);
    const t = det.append("table");
    const rows = [["start", fmtT(tx.t[i])], ["end", fmtT(tx.end[i])],
      ["airtime", `${tx.end[i] - tx.t[i]} \u00b5s`], ["length", `${tx.len[i]} bytes (MPDU with FCS)`],
      ["kind", data.kinds[tx.kind[i]]], ["pcap frame", tx.frame[i] || "(not in the capture)"]];
    if (tx.info[i]) rows.push(["summary", tx.info[i]]);
    rxOf[i].forEach(j => rows.push([`node ${rx.node[j]}`, rxWord[rx.kind[j]]]));
    t.selectAll("tr").data(rows).join("tr").selectAll("td").data(d => d).join("td").text(d => d);
    const no = tx.frame[i];
    const pre = det.append("pre").attr("class", "decoded");
    if (!no) { pre.text(""); return; }
    if (data.details[no]) { pre.text(data.details[no]); return; }
    if (served) {
      pre.text("decoding...");
      fetch(`frame/${no}`).then(rsp => rsp.ok ? rsp.json() : Promise.reject(rsp.status))
        .then(j => { if (state.selectedTx === i) pre.text(j.text); })
        .catch(() => { if (state.selectedTx === i) pre.text("(tshark could not decode this frame)"); });
    } else {
      pre.text(!data.tshark ? "(no decoded headers: tshark was not installed when this page was made)" :
        `(not decoded in this file: the capture has more than ${data.details_max} frames; ` +
        "`moteip view` without --out decodes any frame when it is clicked)");
    }
  }

  // ---- nodes: counters and energy ----------------------------------------------------------
  const stats = data.node_stats;
  const cols = stats.length ? Object.keys(stats[0]).filter(k => k !== "id" && typeof stats[0][k] === "number") : [];
  const table = d3.select("#nodes");
  table.append("thead").append("tr").selectAll("th").data(["node", ...cols]).join("th").text(d => d.replace(/_/g, " "));
  const fmt = v => Number.isInteger(v) ? String(v) : (+v).toPrecision(4);
  const trs = table.append("tbody").selectAll("tr").data(stats).join("tr")
    .on("click", (ev, d) => selectNode(d.id));
  trs.selectAll("td").data(d => [d.id, ...cols.map(c => d[c])]).join("td").text(v => fmt(v));
  const en = d3.select("#energy");
  const EW = en.node().clientWidth || 800, EH = 150, EM = { l: 58, r: 10, t: 18, b: 22 };
  en.attr("viewBox", `0 0 ${EW} ${EH}`);
  const key = stats.length && "energy_j" in stats[0] ? "energy_j" : cols[0];
  if (key) {
    const bx = d3.scaleBand().domain(stats.map(d => d.id)).range([EM.l, EW - EM.r]).padding(0.15);
    const by = d3.scaleLinear().domain([0, d3.max(stats, d => d[key]) || 1]).nice().range([EH - EM.b, EM.t]);
    en.append("g").attr("transform", `translate(0,${EH - EM.b})`)
      .call(d3.axisBottom(bx).tickValues(bx.domain().filter((d, i) => i % Math.ceil(stats.length / 30) === 0)));
    en.append("g").attr("transform", `translate(${EM.l},0)`).call(d3.axisLeft(by).ticks(4));
    en.append("text").attr("x", 4).attr("y", 2).attr("font-size", 10).attr("dominant-baseline", "hanging")
      .text(key === "energy_j" ? "energy [J]" : key);
    en.append("g").selectAll("rect").data(stats).join("rect").attr("class", "bar")
      .attr("x", d => bx(d.id)).attr("width", bx.bandwidth())
      .attr("y", d => by(d[key])).attr("height", d => by(0) - by(d[key]))
      .on("click", (ev, d) => selectNode(d.id))
      .append("title").text(d => `node ${d.id}: ${d[key]}`);
  }
  function selectNode(id) {
    state.selectedNode = id;
    drawRadioTime();
    nodeG.classed("selected", d => d.id === id);
    trs.classed("selected", d => d.id === id);
    en.selectAll("rect.bar").classed("selected", d => d.id === id);
    const s = stats.find(d => d.id === id);
    det.html("");
    det.append("h3").text(`node ${id}`);
    const n = data.nodes.find(d => d.id === id);
    const rows = [["position", n && n.x !== null ? `${n.x} m, ${n.y} m` : "(not placed)"],
      ["links", data.links.filter(l => l[0] === id).map(l => `${l[1]} (PRR ${l[2].toFixed(2)})`).join(", ") || "none"]];
    if (s) Object.entries(s).forEach(([k2, v]) => { if (k2 !== "id") rows.push([k2, typeof v === "object" ? JSON.stringify(v) : fmt(v)]); });
    det.append("table").selectAll("tr").data(rows).join("tr").selectAll("td").data(d => d).join("td").text(d => d);
  }

  // ---- radio over time: duty cycle and energy, from the trace's radio states ------------------
  const radio = r.radio || null;
  const ON = new Set(["listen", "rx", "tx"]);          // every other state is the radio off
  const currentOf = s => !radio ? 0 : s === "tx" ? radio.tx_ma : s === "rx" ? radio.rx_ma
    : s === "listen" ? radio.listen_ma : radio.off_ma;
  function drawRadioTime() {
    const svg = d3.select("#radio-time");
    svg.selectAll("*").remove();
    const RW = svg.node().clientWidth || 800, RH = 170, RM = { l: 58, r: 58, t: 18, b: 22 };
    svg.attr("viewBox", `0 0 ${RW} ${RH}`);
    const who = state.selectedNode;
    const segs = states.filter(sg => who === null || sg.node === who);
    const nNodes = who === null ? new Set(states.map(sg => sg.node)).size : 1;
    const note = d3.select("#radio-note");
    if (!segs.length) {
      note.text("No radio states in this trace: run with --trace-radio (moteip run --trace F " +
                "--trace-radio) to see duty cycle and energy over time.");
      return;
    }
    note.text(`${who === null ? `all ${nNodes} nodes (mean)` : `node ${who}`}; click a node to ` +
              `see it alone` + (radio ? `; energy from the ${radio.profile || "radio"}'s currents ` +
              `at ${radio.voltage} V` : ""));
    const bins = 200, w = tEnd / bins;
    const on = new Float64Array(bins), joules = new Float64Array(bins);
    for (const sg of segs) {       // spread each state's time over the bins it covers
      for (let b = Math.floor(sg.t / w); b < bins && b * w < sg.end; b++) {
        const dt = Math.min(sg.end, (b + 1) * w) - Math.max(sg.t, b * w);
        if (dt <= 0) continue;
        if (ON.has(sg.s)) on[b] += dt;
        if (radio) joules[b] += dt * 1e-6 * currentOf(sg.s) * 1e-3 * radio.voltage;
      }
    }
    const pts = [];
    let cum = 0;
    for (let b = 0; b < bins; b++) {
      cum += joules[b];
      pts.push({ t: (b + 1) * w, duty: 100 * on[b] / (w * nNodes), e: cum / nNodes });
    }
    const rxs = d3.scaleLinear().domain([0, tEnd]).range([RM.l, RW - RM.r]);
    const ry = d3.scaleLinear().domain([0, Math.max(1, d3.max(pts, d => d.duty))]).nice().range([RH - RM.b, RM.t]);
    const re = d3.scaleLinear().domain([0, Math.max(1e-9, cum / nNodes)]).nice().range([RH - RM.b, RM.t]);
    svg.append("g").attr("transform", `translate(0,${RH - RM.b})`)
      .call(d3.axisBottom(rxs).ticks(8).tickFormat(v => (v / 1e6) + " s"));
    svg.append("g").attr("transform", `translate(${RM.l},0)`).call(d3.axisLeft(ry).ticks(4));
    svg.append("text").attr("x", 4).attr("y", 2).attr("font-size", 10).attr("dominant-baseline", "hanging")
      .text("radio on [%]");
    svg.append("path").attr("class", "duty").datum(pts)
      .attr("d", d3.area().x(d => rxs(d.t)).y0(ry(0)).y1(d => ry(d.duty)).curve(d3.curveStepBefore));
    if (radio) {
      svg.append("g").attr("transform", `translate(${RW - RM.r},0)`).call(d3.axisRight(re).ticks(4));
      svg.append("text").attr("x", RW - 4).attr("y", 2).attr("font-size", 10).attr("text-anchor", "end")
        .attr("dominant-baseline", "hanging").text("energy [J]");
      svg.append("path").attr("class", "energy-line").datum(pts)
        .attr("d", d3.line().x(d => rxs(d.t)).y(d => re(d.e)));
    }
    window.moteipView.radioSeries = pts;
  }

  // ---- packet list: every frame, filtered by node, kind and flow --------------------------------
  const flowLinks = new Map();     // flow -> set of "from>to" hops of its path
  data.hops.forEach(([f, a, b]) => {
    if (!flowLinks.has(f)) flowLinks.set(f, new Set());
    flowLinks.get(f).add(`${a}>${b}`);
  });
  const options = (sel, items) => d3.select(sel).selectAll("option").data(items).join("option")
    .attr("value", d => d[0]).text(d => d[1]);
  options("#pkt-node", [["", "any node"], ...nodeIds.map(id => [String(id), `node ${id}`])]);
  options("#pkt-kind", [["", "any kind"], ...data.kinds.map((k, i) => [String(i), k])]);
  options("#pkt-flow", [["", "any flow"], ...[...flowLinks.keys()].map(f => [String(f), `flow ${f}`])]);
  for (const [sel, key] of [["#pkt-node", "pktNode"], ["#pkt-kind", "pktKind"], ["#pkt-flow", "pktFlow"]]) {
    d3.select(sel).property("value", state[key])
      .on("change", function () { state[key] = this.value; drawPackets(); });
  }
  function onFlow(i, f) {          // a frame travels on flow f: sent along one of its hops
    const hops = flowLinks.get(f);
    return !!hops && rxOf[i].some(j => hops.has(`${tx.node[i]}>${rx.node[j]}`));
  }
  function drawPackets() {
    const match = [];
    let matched = 0;
    for (let i = 0; i < nTx; i++) {
      if (state.pktNode !== "" && tx.node[i] !== +state.pktNode) continue;
      if (state.pktKind !== "" && tx.kind[i] !== +state.pktKind) continue;
      if (state.pktFlow !== "" && !onFlow(i, +state.pktFlow)) continue;
      if (matched++ < PACKETS_SHOWN) match.push(i);
    }
    window.moteipView.packetsMatched = matched;
    const t = d3.select("#packets");
    t.selectAll("*").remove();
    t.append("thead").append("tr").selectAll("th")
      .data(["#", "time", "node", "kind", "bytes", "heard", "summary"]).join("th").text(d => d);
    const rows = t.append("tbody").selectAll("tr").data(match).join("tr")
      .attr("class", i => "pkt" + (i === state.selectedTx ? " selected" : ""))
      .on("click", (ev, i) => selectTx(i));
    rows.selectAll("td").data(i => {
      const heard = rxOf[i].map(j => rx.kind[j]);
      const ok = heard.filter(k => k === 0).length;
      return [tx.frame[i] || "", fmtT(tx.t[i]), tx.node[i], data.kinds[tx.kind[i]], tx.len[i],
              `${ok}/${heard.length}`, tx.info[i] || ""];
    }).join("td").text(d => d);
    d3.select("#packets-note").text(`${matched} frame${matched === 1 ? "" : "s"}` +
      (matched > PACKETS_SHOWN ? `: the first ${PACKETS_SHOWN} shown; narrow the filters to see others` : ""));
  }

  window.moteipView = { data, selectTx, selectNode, setCursor, drawPackets, drawRadioTime };
  drawPackets();
  drawRadioTime();
  if (state.selectedNode !== null && row.has(state.selectedNode)) selectNode(state.selectedNode);
  setCursor(Math.min(state.cursor, tEnd), false);
  }   // render

  render(JSON.parse(document.getElementById("data").textContent));
  // A live run (`moteip run --realtime --view`): the server sends the page's data again as the
  // trace grows, and once more with the result when the run ends.
  if (served && window.moteipView.data.live) {
    const badge = d3.select("#live").text("live");
    const es = new EventSource("events");
    es.onmessage = ev => {
      const d = JSON.parse(ev.data);
      render(d);
      badge.text(d.live ? `live: ${d.tx.t.length} frames` : "live: finished");
      if (!d.live) es.close();
    };
    es.onerror = () => { if (es.readyState === EventSource.CLOSED) badge.text("live: disconnected"); };
  }
})();
