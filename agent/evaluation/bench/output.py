"""The bench's figures as text: overhead and floor, throughput, prompt tokens, the imported
wordings and the targets."""

from __future__ import annotations

from typing import Any


def render(f: dict[str, Any]) -> str:
    o, fl, tk, tp = f["overhead"], f["floor"], f["tokens"], f["throughput"]
    lines = ["", f"Runtime overhead per turn (zero-latency scripted model, {o['turns']} turns, in-process)"]
    lines.append(f"  p50 {o['p50_ms']:.2f} ms   p99 {o['p99_ms']:.2f} ms")
    for k, v in o["breakdown_p50_ms"].items():
        lines.append(f"    {k:<42} p50 {v:7.2f} ms")
    lines.append(
        f"  floor (same raw store + database calls) p50 {fl['p50_ms']:.2f} ms  p99 {fl['p99_ms']:.2f} ms"
    )
    low, high = f["ratio_spread"]
    rounds = ", ".join(f"{r['ratio']:.2f}×" for r in f["ratio_rounds"])
    lines.append(
        f"  ratio to floor {f['ratio_to_floor']:.2f}× (median of {len(f['ratio_rounds'])} interleaved "
        f"rounds: {rounds}; spread {low:.2f}–{high:.2f}×)"
    )
    alone = f["agent_alone"]
    lines.append(
        f"  agent run alone (steps 4–7 with no store or database call) p50 {alone['p50_ms']:.2f} ms"
        f"  p99 {alone['p99_ms']:.2f} ms"
    )
    lines += [
        "",
        f"Turns per second through the HTTP API (offline model, {f.get('workers', 1)} "
        "uvicorn worker(s), SQLite)",
    ]
    for c, r in tp.items():
        cpu = ", ".join(f"{k} {v} ms" for k, v in r.get("cpu_ms_per_turn", {}).items())
        lines.append(
            f"  concurrency {c:>2}: {r['turns_per_s']:7.1f} turns/s  "
            f"({r['turns']} turns in {r['seconds']} s, {r['errors']} errors)"
            + (f"  CPU per turn: {cpu}" if cpu else "")
        )
    lines += [
        "",
        f"Prompt tokens per turn that fetched clauses (cl100k_base, {tk['lookup_turns']} of "
        f"{tk.get('questions', '?')} inventory questions fetched; the largest request in parts)",
    ]
    lines.append(f"  {'part':<24}{'mean':>8}{'p50':>8}{'max':>8}")
    for k in tk["mean"]:
        lines.append(f"  {k:<24}{tk['mean'][k]:>8}{tk['p50'][k]:>8}{tk['max'][k]:>8}")
    lines += render_imported(f.get("imported_tokens", {}))
    lines += ["", "Targets"]
    for t in f["targets"]:
        lines.append(
            f"  {'met   ' if t['met'] else 'MISSED'} {t['target']}: {t['value']} {t['unit']} "
            f"(margin {t['margin']:+} {t['unit']})" + (f"\n           why: {t['why']}" if "why" in t else "")
        )
    return "\n".join(lines)


def render_imported(imported: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "Imported wordings: directory and whole lookup prompt per plan (cl100k_base, the costliest lookup)",
    ]
    for label, w in imported.items():
        if "plans" not in w:
            lines.append(f"  {label}: not measured, {w.get('missing')} is missing")
            continue
        lines.append(f"  {label} ({w['units']} units)")
        for plan, p in w["plans"].items():
            largest = ", ".join(f"{k} {v}" for k, v in p["largest_request"].items() if k != "whole")
            lines.append(
                f"    {plan}: {p['clauses_shown']} clauses shown in {p['levels']} level(s); directory "
                f"{p['directory_tokens']}, largest part listing {p['part_listing_max_tokens']}, lookup "
                f"prompt max {p['lookup_prompt_max_tokens']}, whole prompt max "
                f"{p['whole_prompt_max_tokens']} ({largest})"
            )
    return lines
