// The head atlas's one callback (Bokeh CustomJS; args set in book_tools/atlas_page.py).
// Runs on page load and on every widget change: reads the selected head (from the
// search box, the URL's #head-L.H on load, or the layer/head selects), then fills the
// numbers, the roles and every figure from `heads`.
const fmt = (v) => (v === null || v === undefined) ? "needs the full checkpoint"
  : Number(v).toPrecision(4);
const parse = (s) => {
  const m = /^\s*(\d+)\s*\.\s*(\d+)\s*$/.exec(s || "");
  return m && heads[`${+m[1]}.${+m[2]}`] ? `${+m[1]}.${+m[2]}` : null;
};
let name = null;
if (cb_obj === search) {
  name = parse(search.value);
  if (name === null && search.value.trim() !== "") {
    numbers.text = `<p class="atlas-error">No head “${search.value}”: type layer.head, ` +
      "each from 0 to 11, e.g. 5.5.</p>";
    return;
  }
} else if (cb_obj !== layer && cb_obj !== head && window.location.hash) {
  name = parse(decodeURIComponent(window.location.hash).replace(/^#head-/, ""));
}
if (name !== null) {
  const [l, h] = name.split(".");
  if (layer.value !== l || head.value !== h) {
    layer.value = l;   // each fires this callback again, which then draws
    head.value = h;
    return;
  }
}
name = `${layer.value}.${head.value}`;
const main = heads[name];
const pinned = pin.value !== "none" ? heads[pin.value] : null;
const showControl = control.active;
if (window.history && window.history.replaceState) {
  window.history.replaceState(null, "", `#head-${name}`);
}
const labels = {
  antisymmetric_share: "antisymmetric share ‖M<sub>a</sub>‖²/‖M‖²",
  negative_mass_share: "negative mass share ν",
  self_score_bound_violation_share: "pairs breaking the self-score bound (Q3)",
  previous_token_score: "previous-token score (example rows)",
  ov_copying_score: "OV copying score",
};
const cell = (field, entry, who) =>
  `<td data-field="${field}" data-who="${who}">${fmt(entry[field])}</td>`;
const inertia = (e) => `${e.inertia[0]} positive, ${e.inertia[1]} negative`;
let head_row = `<tr><th>head ${name}</th>`;
if (showControl) head_row += "<th>control</th>";
if (pinned) head_row += `<th>pinned ${pin.value}</th>`;
let html = `<table class="atlas-numbers"><thead>${head_row}<th></th></tr></thead><tbody>`;
for (const field of scalars) {
  html += `<tr>${cell(field, main, "main")}`;
  if (showControl) html += cell(field, main.control, "control");
  if (pinned) html += cell(field, pinned, "pin");
  html += `<th scope="row">${labels[field]}</th></tr>`;
}
html += `<tr><td data-field="inertia" data-who="main">${inertia(main)}</td>`;
if (showControl) html += `<td data-field="inertia" data-who="control">${inertia(main.control)}</td>`;
if (pinned) html += `<td data-field="inertia" data-who="pin">${inertia(pinned)}</td>`;
html += "<th scope=\"row\">inertia of the symmetric part</th></tr></tbody></table>";
numbers.text = html;

const roleText = (e, n) => e.roles.length === 0
  ? `<p>Head ${n}: no role in the sources the chapters cite.</p>`
  : e.roles.map((r) => `<p><b>Head ${n}: ${r.role}</b> (${r.cite.join("; ")}; ` +
    `${r.method}${r.chapter ? `; discussed in <a href="${r.chapter}.html">${r.chapter}</a>` : ""}). ` +
    `<b>${r.verdict[0].toUpperCase() + r.verdict.slice(1)}</b>: ${r.measure}.</p>`).join("");
roles.text = roleText(main, name) + (pinned ? roleText(pinned, pin.value) : "") +
  (tokens ? "" : "<p class=\"atlas-note\">The patterns are on GPT-2's position rows: the " +
   "pattern on real text and the OV copying score need the full checkpoint.</p>");

for (const [key, field] of Object.entries(fields)) {
  const y = main[field];
  const x = y.map((_, i) => i + 1);
  curves[key].data = {
    x: x, main: y,
    control: showControl ? main.control[field] : y.map(() => NaN),
    pin: pinned ? pinned[field] : y.map(() => NaN),
  };
}
const draw = (src, m) => { src.data = {x: src.data.x, y: src.data.y, w: m.flat()}; };
draw(patterns.main, main.attention_pattern);
draw(patterns.control, main.control.attention_pattern);
if (pinned) draw(patterns.pin, pinned.attention_pattern);
pattern_figs[1].visible = showControl;
pattern_figs[2].visible = pinned !== null;
pattern_figs[0].title.text = `Attention pattern, head ${name}`;
if (pinned) pattern_figs[2].title.text = `Attention pattern, head ${pin.value}`;
