"""The report's pictures: matplotlib figures returned as inline SVG text.

Why SVG text: the report is one HTML file that must open offline, with no script and no file
beside it; an <svg> element inside the page is both. Text stays text (svg.fonttype none) so
the page stays small and searchable; ids are salted so two builds of a page are identical.
"""
from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "cudaperf", "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False})
PRED, MEAS = "#4C72B0", "#DD8452"  # predicted (blue), measured (orange): the same in every picture
ENGINE_COLORS = {"H2D": "#4C72B0", "compute": "#55A868", "D2H": "#C44E52"}


def svg(fig) -> str:
    """The figure as an <svg> element (no XML prolog, no DOCTYPE, no fixed size: it scales)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'(<svg[^>]*?) width="[^"]*" height="[^"]*"', r"\1", text, count=1)
    return text


def grouped_bars(labels: list[str], predicted: list[float | None], measured: list[float | None], unit: str,
                 title: str, log: bool = False, ceiling: tuple[float, str] | None = None) -> str:
    """Predicted beside measured per kernel (one pair of bars each)."""
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    x = range(len(labels))
    w = 0.4
    ax.bar([i - w / 2 for i in x], [p or 0 for p in predicted], w, label="predicted (timing model, no GPU)", color=PRED)
    ax.bar([i + w / 2 for i in x], [m or 0 for m in measured], w, label="measured (CUDA events, H100)", color=MEAS)
    if ceiling:
        ax.axhline(ceiling[0], color="grey", ls="--", lw=1)
        ax.annotate(ceiling[1], (len(labels) - 0.5, ceiling[0]), ha="right", va="bottom", color="grey", fontsize=8)
    ax.set_xticks(list(x), labels, rotation=25, ha="right")
    ax.set_ylabel(unit)
    if log:
        ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    return svg(fig)


def roofline(points: list[dict], ceilings: list[dict], title: str) -> str:
    """Arithmetic intensity (FLOP/B of compulsory DRAM traffic) against FLOP/s, log-log; each
    kernel's predicted (hollow) and measured (filled) point joined by a line; the roofs."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    ais = [p["ai"] for p in points] or [1.0]
    lo, hi = min(min(ais) / 4, 1.0), max(max(ais) * 4, 100.0)  # wide enough to show the ridge
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    dram = next((c for c in ceilings if c["kind"] == "bandwidth"), None)
    for c in ceilings:
        if c["kind"] != "compute":
            continue
        ys = [min(c["flops"], x * dram["bytes"]) if dram else c["flops"] for x in xs]
        ax.plot(xs, [y / 1e12 for y in ys], color=c.get("color", "grey"), lw=1, ls=c.get("ls", "-"))
        left = "measured" in c["label"]  # measured roofs labelled at the left edge, datasheet ones at their ridge
        x = lo * 1.2 if left or not dram else max(lo * 1.2, 1.1 * c["flops"] / dram["bytes"])
        ax.annotate(c["label"], (x, c["flops"] / 1e12), ha="left", va="bottom", fontsize=7, color=c.get("color", "grey"))
    if dram:
        ax.annotate(dram["label"], (lo * 1.1, lo * 1.1 * dram["bytes"] / 1e12), rotation=0, fontsize=7, color="grey",
                    va="bottom")
    label_y: dict[float, float] = {}  # kernels of one problem share an AI: their labels stacked apart
    for i, p in enumerate(sorted(points, key=lambda q: (q["ai"], q["meas"]))):
        ax.plot([p["ai"], p["ai"]], [p["pred"] / 1e12, p["meas"] / 1e12], color="lightgrey", lw=1, zorder=1)
        ax.scatter([p["ai"]], [p["pred"] / 1e12], facecolors="none", edgecolors=PRED, zorder=2,
                   label="predicted" if i == 0 else None)
        ax.scatter([p["ai"]], [p["meas"] / 1e12], color=MEAS, zorder=3, label="measured" if i == 0 else None)
        key = round(p["ai"], 6)
        y = max(p["meas"] / 1e12, label_y.get(key, 0.0) * 1.45)
        label_y[key] = y
        ax.annotate(p["label"], (p["ai"], p["meas"] / 1e12), xytext=(p["ai"] * 1.5, y), fontsize=6.5, va="center",
                    arrowprops={"arrowstyle": "-", "color": "#bbbbbb", "lw": 0.5})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity, FLOP per compulsory DRAM byte")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return svg(fig)


def accuracy_scatter(points: list[dict], title: str) -> str:
    """Predicted against measured time, log-log, one colour per kernel set, with the diagonal and the
    +-25% band: how far each prediction lands from its measurement."""
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    vals = [v for p in points for v in (p["predicted_us"], p["measured_us"])] or [1.0]
    lo, hi = min(vals) / 1.6, max(vals) * 1.6
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1)
    ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="grey", alpha=0.12, lw=0,
                    label="within 25%")
    colors = [MEAS, PRED, "#55A868", "#8172B3"]
    for i, name in enumerate(dict.fromkeys(p["set"] for p in points)):
        ps = [p for p in points if p["set"] == name]
        ax.scatter([p["measured_us"] for p in ps], [p["predicted_us"] for p in ps], s=18, color=colors[i % len(colors)],
                   label=f"{name} ({len(ps)})", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured, us (CUDA events, H100)")
    ax.set_ylabel("predicted, us (timing model, no GPU)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    return svg(fig)


def sol_bars(resources: list[dict], limiter: str) -> str:
    """Speed of light: each resource's busy time as % of the predicted kernel time."""
    rows = [r for r in resources if r["utilization_pct"] >= 0.05][:9]
    fig, ax = plt.subplots(figsize=(4.2, 0.22 * len(rows) + 0.5))
    names = [r["resource"] for r in rows][::-1]
    vals = [r["utilization_pct"] for r in rows][::-1]
    ax.barh(names, vals, color=[PRED if n != limiter else "#C44E52" for n in names], height=0.6)
    for i, v in enumerate(vals):
        ax.annotate(f"{v:.0f}%", (min(v, 100) + 1, i), va="center", fontsize=7)
    ax.set_xlim(0, 112)
    ax.set_xlabel("% of the predicted kernel time", fontsize=8)
    ax.tick_params(labelsize=7)
    return svg(fig)


def gantt(ops: list[dict], measured: dict | None, title: str) -> str:
    """The predicted timeline, one row per engine, each op a bar labelled with its chunk; below it
    the measured stage times in a row (kernels.bench) and the measured streams total."""
    fig, ax = plt.subplots(figsize=(7.5, 2.9))
    rows = ["H2D", "compute", "D2H"]
    ylab = ["H2D copy engine", "SMs (kernels)", "D2H copy engine"]
    if measured:
        ylab = ["measured: stages in a row", "measured: streams (total only)", *ylab]
    for op in ops:
        y = rows.index(op["engine"]) + (2 if measured else 0)
        ax.broken_barh([(op["start_ms"], op["end_ms"] - op["start_ms"])], (y - 0.35, 0.7),
                       facecolors=ENGINE_COLORS[op["engine"]], edgecolors="white", linewidth=0.5)
        if op["end_ms"] - op["start_ms"] > 0.25:
            ax.annotate(op["name"].split()[0], ((op["start_ms"] + op["end_ms"]) / 2, y), ha="center", va="center",
                        fontsize=6, color="white")
    end = max(op["end_ms"] for op in ops)
    ax.axvline(end, color=PRED, ls="--", lw=1)
    ax.annotate(f"predicted {end:.2f} ms", (end, len(ylab) - 0.45), ha="right", fontsize=7, color=PRED)
    if measured:
        st, t = measured["stages_ms"], 0.0
        for key, eng in (("h2d", "H2D"), ("kernel", "compute"), ("d2h", "D2H")):
            ax.broken_barh([(t, st[key])], (-0.35, 0.7), facecolors=ENGINE_COLORS[eng], alpha=0.55, edgecolors="white")
            t += st[key]
        total = measured.get("streams_ms") or st.get("total")
        ax.broken_barh([(0, total)], (0.65, 0.7), facecolors="none", edgecolors=MEAS, linewidth=1.2)
        ax.annotate(f"measured {total:.2f} ms", (total, 1), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=7, color=MEAS)
    ax.set_yticks(range(len(ylab)), ylab)
    ax.set_xlabel("ms from the first copy")
    ax.set_title(title, fontsize=10)
    return svg(fig)
