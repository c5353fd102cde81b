"""The joints a new kind passes through stay few (scripts/kind_joints.py measures them with ast): no import circle
inside survey/stats even counting imports inside functions, and no more branches on a kind's name outside the
kinds' own folders than five, and no isinstance dispatch on a plan's parameter class in planning."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("kind_joints", ROOT / "scripts" / "kind_joints.py")
joints = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(joints)

KIND_BRANCHES_CEILING = 1  # 38 before the kinds had folders and manifests; the one left reads old stores
PLANNING_DISPATCH_CEILING = 0  # 8 before the one planning path


def test_no_import_circle_inside_stats_counting_function_local_imports():
    assert joints.import_cycles("survey.stats") == []


def test_the_scan_finds_a_circle_hidden_in_a_function(tmp_path, monkeypatch):
    pkg = tmp_path / "survey" / "stats"
    pkg.mkdir(parents=True)
    (tmp_path / "survey" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from survey.stats.b import f\n")
    (pkg / "b.py").write_text("def f():\n    from survey.stats.a import g  # noqa\n")
    monkeypatch.setattr(joints, "ROOT", tmp_path)
    monkeypatch.setattr(joints, "PACKAGE", tmp_path / "survey")
    assert joints.import_cycles("survey.stats") == [["survey.stats.a", "survey.stats.b"]]


def test_at_most_one_kind_branch_outside_the_kinds_folders():
    places = joints.kind_branch_places()
    assert sum(map(len, places.values())) <= KIND_BRANCHES_CEILING, places
    assert not any(rel.startswith(("survey/responses/", "survey/reporting/", "survey/cli/")) for rel in places), places


def test_planning_has_no_isinstance_dispatch():
    assert len(joints.planning_dispatch()) <= PLANNING_DISPATCH_CEILING


def test_no_arrow_runs_back_up_between_the_rooms_of_stats():
    # a room is a subpackage or flat module directly under survey/stats; sequential/ once held both the stored
    # decision that analysis reads and the replay that calls analysis, so the two rooms imported each other
    assert joints.room_cycles("survey.stats") == []


def test_the_room_scan_finds_two_rooms_that_import_each_other(tmp_path, monkeypatch):
    pkg = tmp_path / "survey" / "stats"
    (pkg / "seq").mkdir(parents=True)
    for init in (tmp_path / "survey", pkg, pkg / "seq"):
        (init / "__init__.py").write_text("")
    (pkg / "analysis.py").write_text("from survey.stats.seq.stored import S\n")
    (pkg / "seq" / "stored.py").write_text("S = 1\n")
    (pkg / "seq" / "replay.py").write_text("def f():\n    from survey.stats.analysis import g  # noqa\n")
    monkeypatch.setattr(joints, "ROOT", tmp_path)
    monkeypatch.setattr(joints, "PACKAGE", tmp_path / "survey")
    assert joints.import_cycles("survey.stats") == []
    assert joints.room_cycles("survey.stats") == [["survey.stats.analysis", "survey.stats.seq"]]
