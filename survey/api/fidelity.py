"""`survey.fidelity(source, humans=...)`: do the personas match people? The Python entry point of
`survey fidelity`; it opens the files and hands the tables to survey.stats.humans."""

from __future__ import annotations

from pathlib import Path

from survey.errors import SurveyError


def fidelity(source, humans=None, *, a: str | None = None, b: str | None = None, study: str | None = None,
             by: str | None = None, confidence: float = 0.95, n_boot: int = 1000, seed: int = 0, flips: int = 9999,
             scale: str | None = None):
    """Levels, effects, dispersion and the PPI estimate about humans, per model (survey.stats.humans).

    ``source``: a store or long-table path, or a Source (survey.load_source); ``humans``: a human file path, a
    survey.data.humans.Humans, or None for the one the store's study names (``humans = ...`` in its file).
    ``a``, ``b``: the messages (default: the two the humans saw); ``by``: an attribute of both the respondents
    and the personas, whose levels each get a level comparison.
    """
    from survey.data.humans import Humans, load_humans
    from survey.data.sources import Source, load_source
    from survey.stats.humans import human_fidelity

    if not isinstance(source, Source):
        source = load_source(Path(source), study, scale=scale,
                             humans=None if humans is None or isinstance(humans, Humans) else humans)
    elif humans is not None and not isinstance(humans, Humans):
        scale_name = str(source.table["scale"].iloc[0]) if "scale" in source.table.columns else None
        humans = load_humans(humans, scale_name, sorted(set(source.table["message"].astype(str))))
    people = humans if isinstance(humans, Humans) else source.humans
    if people is None:
        raise SurveyError("no human answers: give a human file (`humans=`), or name one in the study file "
                          "(humans = \"answers.csv\") and run it")
    return human_fidelity(source, people, a, b, by=by, confidence=confidence, n_boot=n_boot, seed=seed, flips=flips)
