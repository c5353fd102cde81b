"""The report as a person sees it: rendered in headless Chromium (Debian's), checked for console
errors, missing images and blank plots; a screenshot is kept under reports/ci-artifacts/."""

from pathlib import Path

import pandas as pd
import pytest
from browser import chromium, skip_without_browser

import survey
from survey.stats.beta_logit import simulate

ROOT = Path(__file__).resolve().parents[2]
skip_without_browser()

# For every <img>: did it load, and how many of its pixels are not (near) white?
IMAGE_STATS = """
return Array.from(document.images).map(img => {
  const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
  let ink = 0;
  if (img.complete && img.naturalWidth > 0) {
    const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) { if (d[i] < 200 || d[i+1] < 200 || d[i+2] < 200) ink++; }
  }
  return {alt: img.alt, loaded: img.complete && img.naturalWidth > 0, ink: ink / Math.max(1, c.width * c.height)};
});
"""

# What runs off sideways: the page itself, or a table (or its scrolling box) wider than the box it sits in
OVERFLOWING = """
const out = [];
if (document.documentElement.scrollWidth > window.innerWidth) out.push('page ' + document.documentElement.scrollWidth);
for (const e of document.querySelectorAll('table, .wide')) {
  if (e.scrollWidth > e.clientWidth + 1) out.push(e.scrollWidth + ' > ' + e.clientWidth + ' px: ' +
    Array.from(e.querySelectorAll('th')).map(t => t.textContent).join(' | ').slice(0, 120));
}
return out;
"""


@pytest.fixture(scope="module")
def driver():
    drv = chromium()
    yield drv
    drv.quit()


def test_report_renders_without_errors(driver, tmp_path):
    one = simulate(25, 8, 3, delta=0.8, seed=5)
    two = simulate(25, 8, 3, delta=-0.4, seed=6).assign(model="other-model")
    out = tmp_path / "report"
    survey.report(pd.concat([one, two], ignore_index=True), out, title="Browser check")
    driver.get((out / "index.html").as_uri())
    assert driver.title == "Browser check"
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors
    images = driver.execute_script(IMAGE_STATS)
    assert len(images) >= 6  # three plots per model
    for img in images:
        assert img["loaded"], f"image did not load: {img['alt']}"
        assert img["ink"] > 0.01, f"plot looks blank: {img['alt']} ({img['ink']:.4f} of pixels drawn)"
    text = driver.find_element("tag name", "body").text
    assert "Headline" in text and "sign-flip permutation" in text
    artifacts = ROOT / "reports" / "ci-artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(artifacts / "report.png"))


def scale_tables() -> dict:
    import numpy as np

    from survey.kinds.choice.model import choice_table, simulate_choice_counts
    from survey.kinds.ordinal.table import scale_params, simulate_table

    counts = simulate_choice_counts(10, 6, 2, np.random.default_rng(1), delta=-0.8, position=0.8)
    return {"likert5": simulate_table(scale_params("likert5", delta=0.6), 12, 6, 2, seed=4),
            "choice": choice_table(counts, 2)}


@pytest.mark.parametrize("scale", ["likert5", "choice"])
def test_scale_reports_render_without_errors(driver, tmp_path, scale):
    out = tmp_path / scale
    survey.report(scale_tables()[scale], out, title=f"{scale} check", flips=999)
    driver.get((out / "index.html").as_uri())
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors
    images = driver.execute_script(IMAGE_STATS)
    assert len(images) >= 2
    for img in images:
        assert img["loaded"], f"image did not load: {img['alt']}"
        assert img["ink"] > 0.01, f"plot looks blank: {img['alt']} ({img['ink']:.4f} of pixels drawn)"
    text = driver.find_element("tag name", "body").text
    assert ("Top-2-box" in text) if scale == "likert5" else ("position bias" in text)


def test_blank_image_is_detected(driver, tmp_path):
    """The check above can fail: a white PNG is reported as blank."""
    import base64
    import io

    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 2))
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    page = tmp_path / "blank.html"
    page.write_text(f'<html><body><img alt="blank" src="data:image/png;base64,'
                    f'{base64.b64encode(buf.getvalue()).decode()}"></body></html>')
    driver.get(page.as_uri())
    (img,) = driver.execute_script(IMAGE_STATS)
    assert img["loaded"] and img["ink"] < 0.01


@pytest.mark.parametrize("scale", ["binary", "likert5", "choice"])
def test_segment_section_renders_for_every_kind(driver, tmp_path, scale):
    """The 'For whom?' section: forest plot drawn, sentence and interaction shown, no page overflow."""
    from survey.stats.segments.simulation import SimSegment, segment_table, simulate_segment_cells

    cells = simulate_segment_cells([SimSegment("men under 35", 12, delta=-0.9), SimSegment("women 55+", 12, delta=0.9,
                                                                                           level=0.5)],
                                   8, 2, scale=scale, seed=3)
    out = tmp_path / scale
    survey.report(segment_table(cells), out, title=f"{scale} segments", flips=999,
                  by="segment", weights={"segment": {"men under 35": 0.3, "women 55+": 0.7}})
    driver.get((out / "index.html").as_uri())
    assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
    forest = [img for img in driver.execute_script(IMAGE_STATS) if img["alt"].startswith("Effect per segment")]
    assert len(forest) == 1 and forest[0]["loaded"] and forest[0]["ink"] > 0.01
    text = driver.find_element("tag name", "body").text
    assert "For whom? simulated: A vs B by segment" in text and "Do the segments differ?" in text
    assert "segment men under 35" in text and "design effect" in text
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 1100, f"the page overflows horizontally ({width} px)"


# Per table cell of the section "Does it match people?": its column's header, text, alignment and wrapping
CELLS = """
const out = [];
for (const table of document.querySelectorAll('table')) {
  const heads = Array.from(table.querySelectorAll('th')).map(t => t.textContent);
  for (const row of table.querySelectorAll('tr')) {
    Array.from(row.querySelectorAll('td')).forEach((td, i) => {
      const s = getComputedStyle(td);
      out.push({head: heads[i], text: td.textContent, align: s.textAlign, wrap: s.whiteSpace});
    });
  }
}
return out;
"""


def test_text_left_ids_whole_and_one_format_per_distance_column_at_800_px(driver, tmp_path):
    """At 800 px: text columns ("message", "in words") read left-aligned, numbers right; a model id never breaks
    at its hyphens; a JSD interval never mixes 0.003 with 4.28e-06."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "humans"))
    from synthetic import synthetic

    table, humans = synthetic("between", n_humans=60, n_personas=20, seed=10)
    table = table.drop(columns="age").assign(model="claude-3-5-haiku-20241022")
    humans.table.drop(columns="weight").to_csv(tmp_path / "h.csv", index=False)
    survey.report(table, tmp_path / "rep", humans=tmp_path / "h.csv", flips=999)
    driver.set_window_size(800, 2400)
    try:
        driver.get((tmp_path / "rep" / "index.html").as_uri())
        cells = driver.execute_script(CELLS)
    finally:
        driver.set_window_size(1100, 2400)
    words = [c for c in cells if c["head"] == "in words"]
    assert words and all(c["align"] in ("left", "start") for c in words)
    assert all(c["align"] in ("left", "start") for c in cells if c["head"] == "message")
    assert all(c["align"] == "right" for c in cells if c["head"] == "humans")
    ids = [c for c in cells if c["head"] == "model" and c["text"] == "claude-3-5-haiku-20241022"]
    assert ids and all(c["wrap"] == "nowrap" for c in ids)
    for c in cells:
        if c["head"] and ("JSD" in c["head"] or "Wasserstein" in c["head"]):
            assert "e-" not in c["text"], c


# The text of every section whose heading starts with one of the given words, up to the next heading
SECTION_TEXT = """
const out = [];
let on = false;
for (const e of document.body.children) {
  if (e.tagName === 'H2') on = arguments[0].some(w => e.textContent.startsWith(w));
  if (on) out.push(e.innerText);
}
return out.join('\\n');
"""


def test_scorecard_of_yes_no_likert_and_pick_at_800_px_without_overflow_or_raw_keys(driver, tmp_path):
    """A study of three questions: the scorecard per message pair, the family's rule and each question's section
    fit an 800-pixel window; no snake_case key, None or nan reaches the reader."""
    import re
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "reporting"))
    from test_report_questions import concept

    survey.report(concept(), tmp_path / "rep", flips=199, primary="intent", title="Concept test")
    driver.set_window_size(800, 2400)
    try:
        driver.get((tmp_path / "rep" / "index.html").as_uri())
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
        overflowing = driver.execute_script(OVERFLOWING)
        card = driver.execute_script(SECTION_TEXT, ["Headline", "Scorecard", "Across the questions"])
        sections = driver.execute_script(SECTION_TEXT, ["Question "])
        artifacts = ROOT / "reports" / "ci-artifacts"
        artifacts.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(artifacts / "scorecard.png"))
    finally:
        driver.set_window_size(1100, 2400)
    assert overflowing == [], overflowing
    for q in ("intent", "appeal", "choose"):
        assert q in card and f"Question {q} — simulated: sneakers vs boots" in sections
    assert "primary: decides" in card and "serial gatekeeping" in card and "correlate" in card
    assert re.search(r"(sneakers wins|boots wins|no reliable difference)", card)
    raw = re.findall(r"\b[a-z]+_[a-z_]+\b|\bNone\b|\bnan\b|[{}]", card)
    assert raw == [], raw


def test_conversation_flow_report_shows_its_order_effect(driver, tmp_path):
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "stats"))
    from test_order_effect import conversation

    survey.report(conversation(shift=-1.0, seed=2), tmp_path / "conv", flips=499)
    driver.set_window_size(800, 2400)
    try:
        driver.get((tmp_path / "conv" / "index.html").as_uri())
        text = driver.execute_script(SECTION_TEXT, ["Order effect"])
        overflowing = driver.execute_script(OVERFLOWING)
    finally:
        driver.set_window_size(1100, 2400)
    assert "depend on the order" in text and "asked first" in text and "first − later" in text
    assert overflowing == [], overflowing
def k_message_tables(tmp_path) -> dict:
    """A pick-one-of-3, a best-worst-over-4 (simulated backend), a Yes/No and a ranking study of three messages."""
    import sys

    from survey import Study
    from survey.kinds.pick.table import simulate_pick_table
    from survey.kinds.rank.simulation import simulate_rank_table

    sys.path.insert(0, str(ROOT / "tests" / "stats"))
    from test_across_messages import simulate_messages

    spec = {"name": "md", "store": str(tmp_path / "md.sqlite"), "replicates": 1,
            "personas": {"set": "shoppers", "count": 8},
            "messages": [{"id": m, "perturbations": m, "count": 8} for m in ("sneakers", "boots", "sandals", "loafers")],
            "question": {"type": "maxdiff", "subset": 3},
            "models": [{"name": "sim-bw", "backend": "simulated", "seed": 4,
                        "options": {"deltas": {"sneakers": 1.0}, "positions": [0.5, 0, 0]}}]}
    study = Study.from_spec(spec, base_dir=tmp_path)
    study.run(yes=True)
    return {"pick3": simulate_pick_table(12, 8, 1, ["sneakers", "boots", "sandals"], seed=2,
                                         deltas={"sneakers": 0.9}, positions=[0.5, 0, 0]),
            "maxdiff4": study.table(),
            "binary3": simulate_messages({"hat": 1.0, "cap": 0.0, "scarf": -1.0}, n=12, m=8, r=1, seed=1),
            "rank3": simulate_rank_table(12, 8, 1, ["sneakers", "boots", "sandals"], seed=3, deltas={"sneakers": 1.0})}


@pytest.mark.parametrize("design", ["pick3", "maxdiff4", "binary3", "rank3"])
def test_k_message_report_at_800_px(driver, tmp_path, design):
    """A study of k > 2 messages: the levels table and the pairwise matrix once per model, in words (no raw JSON
    keys), and nothing runs off sideways in an 800-pixel window."""
    import re

    table = k_message_tables(tmp_path)[design]
    k = int(design[-1])
    out = tmp_path / design
    doc = survey.report(table, out, title=f"{design} check", flips=999)
    (ms,) = doc["message_sets"]
    assert len(ms["pairs"]) == k * (k - 1) // 2
    driver.set_window_size(800, 2400)
    try:
        driver.get((out / "index.html").as_uri())
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
        overflow = driver.execute_script(OVERFLOWING)
        text = driver.find_element("tag name", "body").text
    finally:
        driver.set_window_size(1100, 2400)
    # the page never scrolls sideways, and no table of the k-message sections scrolls in its box (the study
    # summary's nine columns may, as at 800 px for any study: that table is not this section's)
    assert [o for o in overflow if "provider model id" not in o] == [], overflow
    assert text.count(f": the {k} messages\n") == 1 and text.count(f"every pair of the {k} messages") == 1
    assert "Holm p" in text and "joint CI" in text and "Holm-adjusted over the" in text
    raw_keys = set(re.findall(r"\b[a-z]+_[a-z_]+\b", text))
    assert not raw_keys, raw_keys
    if design != "binary3":  # the shares (scores) table is not repeated per pair
        assert "vs boots\n" not in text.split("every pair of the")[0].split("Study summary")[-1]


def test_a_ranking_beside_people_at_800_px(driver, tmp_path):
    """A ranking study with a human file: the "Does it match people?" section's tables (mean ranks, pairs,
    Spearman) fit an 800-pixel window, its figure of the mean ranks loads with ink, and the console stays clean."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "kinds" / "rank"))
    from test_rank_study import study_toml

    messages = ["sneakers", "boots", "sandals"]
    rows = ["respondent," + ",".join(messages)] + [f"r{i},{a},{b},{c}" for i, (a, b, c) in
                                                     enumerate([(1, 2, 3), (1, 3, 2), (2, 1, 3), (3, 1, 2)])]
    (tmp_path / "ranks.csv").write_text("\n".join(rows) + "\n")
    toml = study_toml(messages).replace("positions = [0.6, 0.0, 0.0, -0.2]", "").replace(", loafers = -0.8", "")
    (tmp_path / "study.toml").write_text(toml.replace("replicates = 2", 'replicates = 1\n\n[humans]\nfile = '
                                                                        '"ranks.csv"\nask = false'))
    survey.Study.from_toml(tmp_path / "study.toml").run(yes=True, progress=False)
    survey.report(survey.load_source(tmp_path / "store.sqlite"), tmp_path / "rep", flips=999)
    driver.set_window_size(800, 2400)
    try:
        driver.get((tmp_path / "rep" / "index.html").as_uri())
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
        overflow = driver.execute_script(OVERFLOWING)
        images = driver.execute_script(IMAGE_STATS)
        section = driver.execute_script(SECTION_TEXT, ["Does it match people?"])
    finally:
        driver.set_window_size(1100, 2400)
    assert [o for o in overflow if "provider model id" not in o] == [], overflow
    assert "Spearman" in section and "sneakers − boots" in section and "sim: mean rank" in section
    (figure,) = [i for i in images if i["alt"].startswith("Mean rank of each message")]
    assert figure["loaded"] and figure["ink"] > 0.01
