"""The fidelity numbers in plain words, for the column beside them: JSD, Wasserstein and the PPI weight lambda
mean little to most readers, and a table row should say what it found without the "how to read it" paragraph.

The words compare each distance with the human noise floor (the same distance between two random halves of
the humans) and the uniform guess, the references the tables already print."""

from __future__ import annotations

import numpy as np


def level_in_words(fidelity) -> str:
    """How close one message's persona answers are to the humans', from a LevelFidelity."""
    jsd = fidelity.distances["jsd"]
    value, floor = jsd["value"], jsd["noise_floor"]
    uniform = jsd.get("baselines", {}).get("uniform")
    if value <= floor:
        words = "close: no farther from people than two halves of the humans are from each other"
    elif value <= 2 * floor:
        words = "fairly close: within twice the humans' own sampling noise"
    elif uniform is not None and value > uniform:
        words = "far: farther from people than a uniform guess"
    else:
        words = "far: more than twice the humans' own sampling noise"
    wasserstein = fidelity.distances.get("wasserstein")
    if wasserstein is not None:
        # the distance puts the K points at 0, 1/(K - 1), ..., 1: a share of the scale's range, not scale points
        words += f"; answers {wasserstein['value']:.1%} of the scale's range from people's on average"
    return words


def ppi_in_words(result) -> str:
    """What the prediction-powered weight lambda did, from a PPIResult about the humans."""
    lams = result.lam if isinstance(result.lam, tuple) else (result.lam,)
    if max(lams) <= 0:
        use = "the model's answers are not used (they do not predict these people): the humans' own interval"
    elif min(lams) >= 0.995:
        use = "the model's answers count in full"
    else:
        use = f"the model's answers count at weight {sum(lams) / len(lams):.2f} of 1"
    gain = result.effective_n - result.n
    if not (np.isfinite(gain) and np.isfinite(result.width_ratio)):  # no spread among the humans: nothing to scale
        return f"{use}; the humans' answers have no spread, so what the model is worth cannot be said"
    if abs(gain) < 0.5:
        return f"{use}; no gain over the {result.n} humans alone"
    more = "worth" if gain > 0 else "costing"
    return f"{use}; {more} {abs(gain):.0f} humans ({result.width_ratio:.2f} times the humans-only width)"
