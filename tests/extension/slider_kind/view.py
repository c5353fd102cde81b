"""The slider's report view: the mean-score view, with the slider's own words for what each persona did."""

from survey.kinds.ordinal.view import OrdinalView


class SliderView(OrdinalView):
    kind = "slider"
    reading = "moved a 0-100 slider for many paraphrases (perturbations) of each message"


VIEW = SliderView()
