"""The report's "For whom?" sections: per result with segments or a target, the forest plot, the segments'
table, their interaction test, the weights' diagnostics and a sentence a marketer reads. Everything shown
comes from the result's survey.stats.segments.SegmentAnalysis; nothing is computed here."""

from __future__ import annotations

from survey.common.formatting import fmt


def _ci(ci) -> str:
    return f"{fmt(ci[0], 3)} to {fmt(ci[1], 3)}"


def segment_sections(results: list, prefix: str = "") -> list:
    """One Section per A/B result that carries segments (``result.segments``); ``prefix`` names the question of a
    study with several ("question intent: ")."""
    from survey.plots.segments import segment_forest
    from survey.reporting import Section, fig_png

    out = []
    for r in results:
        seg = r.segments
        if seg is None:
            continue
        sec = Section(prefix[:1].upper() + prefix[1:] + f"For whom? {r.model}: {r.a} vs {r.b}" + (f" by {seg.by}" if seg.by else " in the target market"))
        sec.paragraphs.append(seg.sentence())
        if seg.segments:
            # a result decided by a family of tests (a checkbox): each effect is on its own deciding part, named
            word = next((s.result.part_word for s in seg.segments if s.part is not None), None)
            sec.tables.append({"columns": ["segment", "personas", f"effect ({seg.unit})", *([f"on {word}"] if word
                                                                                           else []), "CI",
                                           "simultaneous CI", "p-value", f"p ({seg.adjustment} across segments)"],
                               "rows": [[s.segment, s.n_personas, fmt(s.effect, 4), *([s.part] if word else []),
                                         _ci(s.ci), _ci(s.simultaneous_ci), fmt(s.pvalue, 3),
                                         fmt(s.pvalue_adjusted, 3)] for s in seg.segments]})
        sec.figures.append(fig_png(segment_forest(seg, r), "Effect per segment with its CI (thick) and the "
                                   "simultaneous CI across segments (thin); the pooled effect and these personas' "
                                   "effect weighted to the target below. Blue: A preferred; red: B preferred; grey: no reliable difference."))
        if seg.interaction is not None:
            i = seg.interaction
            verdict = "differ" if i.pvalue <= seg.alpha else "do not differ reliably"
            if i.parts is not None:  # a family (a checkbox's options): each part across the segments, then Holm
                w = i.part_word
                sec.paragraphs.append(f"Do the segments differ? The interaction test is run {w} by {w} over "
                                      f"{i.n_pairs} paraphrase pairs, every segment compared on the same {w}, with "
                                      f"Holm's adjustment across the {len(i.parts)} {w}s: they {verdict} (smallest "
                                      f"Holm p = {fmt(i.pvalue, 3)}, {w} '{i.part}'). Its null: {i.null}.")
                sec.tables.append({"columns": [w, "interaction statistic", "p-value", f"p (holm across {w}s)"],
                                   "rows": [[x[w], fmt(x["statistic"], 4), fmt(x["pvalue"], 3), fmt(x["holm"], 3)]
                                            for x in i.parts]})
            else:
                sec.paragraphs.append(f"Do the segments differ? The interaction test over {i.n_pairs} paraphrase "
                                      f"pairs says they {verdict} (p = {fmt(i.pvalue, 3)}). Its null: {i.null}.")
        if seg.population is not None:
            w = seg.population.weights
            sec.paragraphs.append(f"Target population: {w.rests_on}. The weighted effect is the weighted mean over "
                                  "personas of each paraphrase pair's difference, tested by the same sign-flip test; its "
                                  "interval is about these personas, and about the target population only when the "
                                  "personas of a cell share one effect.")
            if w.target is not None:
                sec.tables.append({"columns": ["attribute", "level", "target share", "personas' share",
                                               "weighted share"],
                                   "rows": [[a, lvl, fmt(w.target.margins[a][lvl], 3), fmt(b, 3),
                                             fmt(w.after.get(a, {}).get(lvl), 3)]
                                            for a, levels in w.before.items() for lvl, b in levels.items()]})
        sec.paragraphs += [f"Note: {x}" for x in seg.warnings]
        sec.paragraphs.append("Each segment's test is the sign-flip test over paraphrase pairs on the segment's "
                              "personas, valid whatever share of the paraphrase variance all personas share; "
                              "per-segment sign or Wilcoxon tests on personas are not. Segments and weights are "
                              "fixed from persona attributes before any answer is read. Every number here is "
                              "about these personas (weighted): whether people answer alike needs people.")
        out.append(sec)
    return out
