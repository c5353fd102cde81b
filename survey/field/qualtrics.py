"""A study as a Qualtrics survey file (.qsf), so people can answer the same instrument on Qualtrics and its
export comes back through the wide human-file import (survey.data.humans) with no column mapping.

Format: QSF, the JSON survey file Qualtrics exports and imports (Qualtrics support, "Importing and Exporting
Surveys": "The Import Survey option allows you to upload a .QSF or .TXT file"). Not the Advanced TXT format:
it carries questions, choices and blocks only, while the survey flow (branching, randomisation, embedded data)
has to be added after the import (University of Texas, "Advanced Format TXT files in Qualtrics"). A QSF is one
object ``{"SurveyEntry": {...}, "SurveyElements": [...]}``; the elements used here are the blocks (``BL``),
the survey flow (``FL``: Block, Randomizer, Group, EmbeddedData, EndSurvey), the survey options (``SO``), the
question count (``QC``) and one ``SQ`` per question.

What the file holds, in the flow's order:
- the consent text (the study's ``[field] consent``, when it has one) with an "I agree" answer;
- one question per field of the persona template (age, gender, ...), its data export tag the field's name, so
  each respondent can also be asked about as a persona: the set's levels as choices (a number box for a
  numeric field, a text box for many levels, as `survey field` asks them: survey.field.instrument);
- between-subjects assignment (within-subjects with ``[field] design = "within"``: every message in random
  order, each by the J-th paraphrase, J drawn evenly): a Randomizer presenting one of the messages evenly; within it one of that
  message's paraphrases evenly, as embedded data ``condition`` (the message id), ``perturbation`` (the
  paraphrase id, which the wide import reads as the paraphrase shown) and ``paraphrase`` (its text, piped into
  the question, HTML-escaped since Qualtrics pipes it into the page as it is). The message's block asks the
  study's questions about it, the export tag of the primary question (``[analysis] primary``, else the first)
  being the message id: the column the wide import reads as that message's answer. Further questions are
  tagged ``MESSAGE_QID`` (attributes to the wide import);
- questions that show the messages together (forced choice, pick) as one multiple choice per question, its
  tag the question id, each message shown by its first paraphrase (Qualtrics shows the options in random order);
- the attention check of ``[field]``, when it has one.
Yes/No and scales are single-answer multiple choice whose choices are the type's words (the export's choice
text reads back as the answer) and whose recode values are the scores; free text (and free text rated by
semantic similarity) is a text box. A number (``type = "numeric"``) is a text box validated as a number between
the question's min and max; options ticked (``type = "checkbox"``) are a multiple-answer multiple choice whose
choices show the option names and whose variable names (what the export's choice text writes) are the option
numbers, so the cell reads "1,3" as a human file says it, with the number of choices held to min_choices ..
max_choices and, when none may be ticked, an exclusive "None of these" (variable name "none"). MaxDiff and rank have no Qualtrics question that reads back as their answers
and are refused. Download the responses as CSV with "Use choice text".
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from survey.errors import SurveyError
from survey.field.instrument import demographics, human_wording, questions_of
from survey.field.widgets import widget_for

FORMATS = ("qualtrics",)
CONDITION = "condition"  # not "message": a file with a 'message' column is read as a long file
PERTURBATION = "perturbation"  # the wide import's name for the paraphrase shown
PARAPHRASE = "paraphrase"  # the paraphrase's text, piped into the question
PANEL_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "rid")  # read from the respondent's link


def export_instrument(study_path: str | Path, fmt: str, out: str | Path) -> dict:
    """Write the study at ``study_path`` as a survey file of format ``fmt`` ("qualtrics": a .qsf) to ``out``;
    returns what was written (path, questions, conditions, notes)."""
    from survey.study.spec import load_study

    if fmt not in FORMATS:
        raise SurveyError(f"unknown export format '{fmt}'; choose {', '.join(FORMATS)}")
    out = Path(out)
    if out.is_dir():
        raise SurveyError(f"{out}: is a folder; give a file name such as {out / 'study.qsf'}")
    if not out.parent.is_dir():
        raise SurveyError(f"{out}: its folder {out.parent} does not exist; create it or choose another path")
    qsf, summary = qualtrics_survey(load_study(study_path))
    try:
        out.write_text(json.dumps(qsf, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise SurveyError(f"{out}: cannot write it ({exc.strerror or exc}); choose another path") from None
    return {"format": fmt, "out": str(out), **summary}


def qualtrics_survey(spec) -> tuple[dict, dict]:
    """The QSF object of a StudySpec and a summary of it."""
    questions = questions_of(spec)
    for qid, q in questions:
        refused = getattr(widget_for(q.response), "not_exported", None)  # the kind says why it cannot be
        if refused:
            raise SurveyError(f"question '{qid}' (type = '{q.type}', {refused}) has no Qualtrics question "
                              "that reads back as its answers; field it with `survey field` instead")
    fspec = spec.field
    design = fspec.design if fspec is not None else "between"
    if design not in ("between", "within"):
        raise SurveyError(f"[field] design = '{design}' is not one the Qualtrics export knows: 'between' or 'within'")
    pset, messages = _sets(spec)
    b = _Builder(spec.name)
    notes: list[str] = []
    flow: list[dict] = [b.embedded({f: None for f in PANEL_FIELDS})]
    if fspec is not None:
        flow.append(b.block("Consent", [b.descriptive("consent_text", fspec.consent),
                                        b.choice("consent", "Do you agree to take part?", {1: "I agree"})]))
    flow.append(b.block("About you", [_demographic(b, d) for d in demographics(pset, spec.personas.template)]))
    primary = spec.analysis.primary  # its answers are the message's column
    per_message = sorted(((qid, q) for qid, q in questions if q.response.view.per_message),
                         key=lambda item: item[0] != primary)
    together = [(qid, q) for qid, q in questions if not q.response.view.per_message]
    conditions = 0
    if per_message:
        assign, conditions = (_between if design == "between" else _within)(b, messages, per_message)
        flow += assign
    else:  # no question about one message: the messages are shown together only
        notes.append("no question asks about one message, so no condition is assigned")
    if together:
        first = {mid: items[0].text for mid, items in messages.items()}
        flow.append(b.block("Together", [_together(b, qid, q, first) for qid, q in together]))
        notes.append(f"{', '.join(qid for qid, _ in together)}: each message is shown by its first paraphrase; the "
                     "answer column holds the chosen text and is not read by the wide import")
    if fspec is not None:
        options = dict(enumerate(fspec.attention_options, start=1))
        flow.append(b.block("Attention", [b.choice("attention", fspec.attention_question, options)]))
    flow.append({"Type": "EndSurvey", "FlowID": b.flow_id()})
    summary = {"questions": [qid for qid, _ in questions], "messages": list(messages),
               "design": design, "conditions": conditions,
               "answer_columns": list(messages) if per_message else [], "notes": notes}
    return b.survey(flow), summary


def _message_block(b: _Builder, mid: str, per_message: list, piped: str) -> dict:
    """The questions about message ``mid``: the first tagged with its id (the wide import's answer column)."""
    return b.block(mid, [_asked(b, mid if i == 0 else f"{mid}_{qid}", q, piped)
                         for i, (qid, q) in enumerate(per_message)])


def _between(b: _Builder, messages: dict, per_message: list) -> tuple[list[dict], int]:
    """One message evenly, then one of its paraphrases evenly: embedded condition, perturbation, paraphrase."""
    groups = []
    for mid, items in messages.items():
        pick = b.randomizer([b.embedded({CONDITION: mid, PERTURBATION: str(p.id),
                                         PARAPHRASE: html.escape(p.text, quote=False)}) for p in items])
        groups.append(b.group(mid, [pick, _message_block(b, mid, per_message, PARAPHRASE)]))
    return [b.randomizer(groups)], sum(len(items) for items in messages.values())


def _within(b: _Builder, messages: dict, per_message: list) -> tuple[list[dict], int]:
    """Every message, in random order, each by its J-th paraphrase (J drawn evenly, as `survey field` does):
    embedded ``paraphrase_number`` and, per message, ``MESSAGE_perturbation`` and ``MESSAGE_paraphrase``
    (attributes to the wide import, which reads one perturbation per respondent)."""
    n = max(len(items) for items in messages.values())
    sets = []
    for j in range(n):
        data = {"paraphrase_number": str(j + 1)}
        for mid, items in messages.items():
            p = items[j % len(items)]
            data.update({f"{mid}_{PERTURBATION}": str(p.id), f"{mid}_{PARAPHRASE}": html.escape(p.text, quote=False)})
        sets.append(b.embedded(data))
    blocks = [_message_block(b, mid, per_message, f"{mid}_{PARAPHRASE}") for mid in messages]
    return [b.randomizer(sets), b.randomizer(blocks, subset=len(blocks))], n


def _sets(spec):
    """The persona set and each message's paraphrases (id -> items), loaded as `survey run` loads them."""
    from survey.registry import load_persona_set, load_perturbation_set

    pset = load_persona_set(spec.registry_ref(spec.personas.set), spec.sets_dir)
    messages = {}
    for m in spec.messages:
        pert = load_perturbation_set(spec.registry_ref(m.perturbations), spec.sets_dir)
        items = list(pert.items)[:m.count] if m.count else list(pert.items)
        messages[m.id or str(pert.message)] = items
    return pset, messages


def _demographic(b: _Builder, d) -> dict:
    """A persona attribute asked as `survey field` asks it: radio buttons, a number box or a text box."""
    if d.widget == "radio":
        return b.choice(d.name, d.label, dict(enumerate(d.levels, start=1)))
    return b.text_entry(d.name, d.label, number=d.widget == "number")


def _asked(b: _Builder, tag: str, q, piped: str) -> dict:
    rtype = q.response

    def words(template: str) -> str:  # the wording escaped, the paraphrase piped in from embedded data
        return html.escape(human_wording(template, perturbation="\x00")).replace("\x00", "${e://Field/" + piped + "}")

    own = getattr(widget_for(rtype), "qualtrics", None)  # a kind asked its own way (a number box, boxes to tick)
    if own is not None:
        return own(b, tag, q, words)
    text = words(q.resolved_template)
    if not rtype.labels:  # free text, or free text rated by semantic similarity after the answers are in
        return b.text_entry(tag, text, escaped=True, essay=True)
    return b.choice(tag, text, dict(rtype.labels), escaped=True)


def _together(b: _Builder, qid: str, q, first: dict) -> dict:
    text = human_wording(q.resolved_template)  # the options' lines dropped: they are the choices
    return b.choice(qid, text, dict(enumerate(first.values(), start=1)), shuffle=True)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


class _Builder:
    """Numbers questions, blocks and flow elements as Qualtrics does (QID1, BL_1, FL_1, ...)."""

    def __init__(self, name: str):
        self.name = name
        self.questions: list[dict] = []
        self.blocks: list[dict] = []
        self._flows = 0

    def flow_id(self) -> str:
        self._flows += 1
        return f"FL_{self._flows}"

    def _question(self, tag: str, text: str, payload: dict, escaped: bool) -> dict:
        qid = f"QID{len(self.questions) + 1}"
        shown = text if escaped else html.escape(text)
        self.questions.append({"SurveyID": self.survey_id, "Element": "SQ", "PrimaryAttribute": qid,
                               "SecondaryAttribute": tag, "TertiaryAttribute": None,
                               "Payload": {"QuestionID": qid, "DataExportTag": tag, "QuestionText": shown,
                                           "QuestionDescription": tag, "Configuration": {
                                               "QuestionDescriptionOption": "UseText"},
                                           "Language": [], "DataVisibility": {"Private": False, "Hidden": False},
                                           **payload}})
        return {"Type": "Question", "QuestionID": qid}

    def choice(self, tag: str, text: str, choices: dict, *, escaped: bool = False, shuffle: bool = False) -> dict:
        """Single-answer multiple choice; ``choices``: recode value (the score) -> the words shown."""
        keys = [str(i) for i in range(1, len(choices) + 1)]
        payload = {"QuestionType": "MC", "Selector": "SAVR", "SubSelector": "TX",
                   "Choices": {k: {"Display": html.escape(str(w))} for k, w in zip(keys, choices.values(), strict=True)},
                   "ChoiceOrder": keys, "RecodeValues": {k: str(v) for k, v in zip(keys, choices, strict=True)},
                   "Validation": {"Settings": {"ForceResponse": "ON", "ForceResponseType": "ON", "Type": "None"}}}
        if shuffle:
            payload["Randomization"] = {"Advanced": None, "Type": "All", "TotalRandSubset": ""}
        return self._question(tag, text, payload, escaped)

    def multiple(self, tag: str, text: str, options, low: int, high: int) -> dict:
        """Multiple-answer multiple choice: ``options`` shown, exported as their numbers (variable names), from
        ``low`` to ``high`` of them ticked; with ``low`` 0 an exclusive "None of these" exported as "none"."""
        names = [str(o) for o in options] + (["None of these"] if low == 0 else [])
        keys = [str(i) for i in range(1, len(names) + 1)]
        choices = {k: {"Display": html.escape(n)} for k, n in zip(keys, names, strict=True)}
        naming = {k: k for k in keys[:len(options)]}
        if low == 0:
            choices[keys[-1]]["ExclusiveAnswer"] = True
            naming[keys[-1]] = "none"
        payload = {"QuestionType": "MC", "Selector": "MAVR", "SubSelector": "TX", "Choices": choices,
                   "ChoiceOrder": keys, "RecodeValues": {k: k for k in keys}, "VariableNaming": naming,
                   "Validation": {"Settings": {"ForceResponse": "ON", "ForceResponseType": "ON", "Type": "ChoiceRange",
                                               "MinChoices": str(max(low, 1)), "MaxChoices": str(high)}}}
        return self._question(tag, text, payload, True)

    def text_entry(self, tag: str, text: str, *, number: bool | tuple = False, essay: bool = False,
                   escaped: bool = False) -> dict:
        """``number``: a number box (True), or the (min, max) it must be within."""
        settings = {"ForceResponse": "ON", "ForceResponseType": "ON", "Type": "None"}
        if number:
            settings.update({"Type": "ContentType", "ContentType": "ValidNumber"})
        if isinstance(number, tuple):
            settings["ValidNumber"] = {"Min": _num(number[0]), "Max": _num(number[1]), "NumDecimals": ""}
        payload = {"QuestionType": "TE", "Selector": "ESTB" if essay else "SL", "Validation": {"Settings": settings}}
        return self._question(tag, text, payload, escaped)

    def descriptive(self, tag: str, text: str) -> dict:
        return self._question(tag, text, {"QuestionType": "DB", "Selector": "TB"}, False)

    def block(self, description: str, elements: list[dict]) -> dict:
        bid = f"BL_{len(self.blocks) + 1}"
        self.blocks.append({"Type": "Standard", "SubType": "", "Description": description, "ID": bid,
                            "BlockElements": elements})
        return {"Type": "Block", "ID": bid, "FlowID": self.flow_id()}

    def embedded(self, fields: dict) -> dict:
        """Set embedded data; a field without a value is read from the respondent's link (panel ids)."""
        data = [{"Description": k, "Type": "Recipient" if v is None else "Custom", "Field": k,
                 "VariableType": "String", "DataVisibility": [], "AnalyzeText": False,
                 **({} if v is None else {"Value": v})} for k, v in fields.items()]
        return {"Type": "EmbeddedData", "FlowID": self.flow_id(), "EmbeddedData": data}

    def randomizer(self, flow: list[dict], subset: int = 1) -> dict:
        """Present ``subset`` of ``flow``'s elements in random order, evenly (Qualtrics balances the counts)."""
        return {"Type": "Randomizer", "FlowID": self.flow_id(), "SubSet": subset, "EvenPresentation": True,
                "Flow": flow}

    def group(self, description: str, flow: list[dict]) -> dict:
        return {"Type": "Group", "FlowID": self.flow_id(), "Description": description, "Flow": flow}

    @property
    def survey_id(self) -> str:
        return "SV_" + re.sub(r"[^A-Za-z0-9]", "", self.name)[:15]

    def survey(self, flow: list[dict]) -> dict:
        sid = self.survey_id

        def element(kind: str, primary: str, payload, secondary=None) -> dict:
            return {"SurveyID": sid, "Element": kind, "PrimaryAttribute": primary, "SecondaryAttribute": secondary,
                    "TertiaryAttribute": None, "Payload": payload}

        root = {"Type": "Root", "FlowID": self.flow_id(), "Flow": flow, "Properties": {"Count": self._flows}}
        options = {"BackButton": "false", "SaveAndContinue": "true", "SurveyProtection": "PublicSurvey",
                   "BallotBoxStuffingPrevention": "true", "NoIndex": "Yes", "SurveyTermination": "DefaultMessage",
                   "Header": "", "Footer": "", "ProgressBarDisplay": "None", "PartialData": "+1 week",
                   "SurveyTitle": self.name, "SurveyLanguage": "EN"}
        return {"SurveyEntry": {"SurveyID": sid, "SurveyName": self.name, "SurveyDescription": None,
                                "SurveyLanguage": "EN", "SurveyStatus": "Inactive",
                                "SurveyStartDate": "0000-00-00 00:00:00", "SurveyExpirationDate": "0000-00-00 00:00:00"},
                "SurveyElements": [element("BL", "Survey Blocks", self.blocks),
                                   element("FL", "Survey Flow", root),
                                   element("SO", "Survey Options", options),
                                   element("QC", "Survey Question Count", None, str(len(self.questions))),
                                   *self.questions]}
