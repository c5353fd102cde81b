"""`survey personas ...` and `survey perturbations ...`: list, show and generate the registries' sets."""

from __future__ import annotations

import json
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from survey import SurveyError
from survey.cli.common import echo_json, json_option, print_table, seed_option
from survey.cli.texts import DEFAULT_TEMPLATE, NEAR_THRESHOLD

# The sets' pydantic models and the backends are imported inside the commands: --help stays light.


def _origin(path: Path) -> str:
    """'shipped' for the project's own sets, 'local' for the current directory's."""
    from survey import SHIPPED_ROOT

    return "shipped" if path.parent.resolve() == (SHIPPED_ROOT / path.parent.name).resolve() else "local"


def _parse_params(items: tuple[str, ...]) -> dict:
    """--param KEY=VALUE pairs; VALUE is JSON when it parses (false, 3, 0.5), else a string."""
    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SurveyError(f"--param must look like KEY=VALUE (e.g. enable_thinking=false); got '{item}'")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params


def _check_out(out: str, exts: tuple[str, ...], force: bool) -> Path:
    """Refuse a bad --out before any paid request is made."""
    from survey import ID_RULE, NAME_RE

    path = Path(out)
    if path.suffix not in exts:
        raise SurveyError(f"--out {out}: the file must end in {' or '.join(exts)}")
    if not NAME_RE.match(path.stem):
        raise SurveyError(f"--out {out}: '{path.stem}' is not a valid set name; {ID_RULE}")
    if path.exists() and not force:
        raise SurveyError(f"{path} already exists; choose another --out or pass --force to overwrite it")
    return path


@contextmanager
def _generation_bar(model_ref: str, as_json: bool):
    """An on_progress(done, total, requests) that shows a bar once the backend is ready: an error
    before that (unknown backend, missing key) stays one clean line."""
    with ExitStack() as stack:
        bar = None

        def on_progress(done: int, total: int, requests: int) -> None:
            nonlocal bar
            if bar is None:
                from survey import progress_bar

                bar = stack.enter_context(progress_bar(f"generating with {model_ref}", total, keep=not as_json,
                                                       fields={"requests": 0}))
            bar.update(done, requests=requests)

        yield on_progress


def _report(result, out: Path, noun: str, as_json: bool, extra: dict) -> None:
    info = {"out": str(out), **extra, **result.to_dict()}
    if as_json:
        echo_json(info)
    else:
        if result.removed:
            print_table(f"removed {len(result.removed)} duplicate(s)", ["text", "reason", "duplicate of", "similarity"],
                        [[r.text, r.reason, r.duplicate_of, r.similarity] for r in result.removed])
        if result.invalid:
            print_table(f"dropped {len(result.invalid)} invalid item(s)", ["attempt", "reason", "model output"],
                        [[i.attempt, i.reason, i.raw[:120]] for i in result.invalid])
        click.echo(f"wrote {len(result.kept)} {noun} to {out} ({result.attempts} request(s), "
                   f"{result.prompt_tokens}+{result.completion_tokens} tokens)")
    if result.interrupted:
        click.echo(f"interrupted: kept the {len(result.kept)} {noun} received so far", err=True)
        raise SystemExit(130)
    if not result.complete:
        click.echo(f"warning: only {len(result.kept)} of {result.requested} {noun} after {result.attempts} "
                   "request(s); raise --max-attempts or use a stronger --model", err=True)
        raise SystemExit(1)


def _nothing_kept(model_ref: str, noun: str, result) -> None:
    if result.interrupted:
        click.echo(f"interrupted: no valid {noun} received; nothing written", err=True)
        raise SystemExit(130)
    reasons = list(dict.fromkeys(i.reason for i in result.invalid))[:3]
    why = f" (dropped {len(result.invalid)} invalid: {'; '.join(reasons)})" if reasons else ""
    raise SurveyError(f"{model_ref} produced no valid {noun} in {result.attempts} request(s){why}; nothing "
                      "written. Try a stronger --model or more --max-attempts")


def _generation_options(f, model_help: str = "BACKEND:MODEL_ID, e.g. mistral:mistral-small-latest",
                        model_required: bool = True,
                        seed_help: str = "provider seed of the first request (+1 per request)"):
    for opt in reversed([
        click.option("--model", "model_ref", required=model_required, help=model_help),
        click.option("--count", type=click.IntRange(min=1), required=True, help="how many to keep"),
        click.option("--out", required=True, type=click.Path(dir_okay=False), help="file to write"),
        seed_option(default=None, help=seed_help),
        click.option("--temperature", type=click.FloatRange(min=0), default=1.0, show_default=True),
        click.option("--max-attempts", type=click.IntRange(min=1), default=10, show_default=True,
                     help="requests to make at most before giving up"),
        click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
                     help="extra provider parameter, e.g. enable_thinking=false (repeatable)"),
        click.option("--description", default=None, help="description stored in the file"),
        click.option("--force", is_flag=True, help="overwrite --out if it exists"),
        json_option,
    ]):
        f = opt(f)
    return f


# ---- personas --------------------------------------------------------------------------------------

@click.group("personas")
def personas() -> None:
    """Persona sets: personas/NAME.jsonl in ./personas, then the project's shipped ones."""


@personas.command("list")
@json_option
def personas_list(as_json: bool) -> None:
    """List the persona sets on the search path."""
    from survey import persona_set_paths, read_persona_set

    rows = []
    for name, path in persona_set_paths().items():
        row = {"name": name, "path": str(path), "origin": _origin(path)}
        try:
            s = read_persona_set(path)
            row.update(count=len(s.personas), attributes=s.attribute_names, description=s.description)
        except SurveyError as exc:
            row.update(error=str(exc))
        rows.append(row)
    if as_json:
        echo_json(rows)
        return
    print_table("persona sets", ["name", "personas", "attributes", "origin", "path"],
                [[r["name"], r.get("count", "INVALID"), ", ".join(r.get("attributes", [])) or r.get("error", ""),
                  r["origin"], r["path"]] for r in rows])


@personas.command("show")
@click.argument("name")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="personas to print in the table (JSON prints all)")
@json_option
def personas_show(name: str, limit: int, as_json: bool) -> None:
    """Validate and show a persona set (a name or a .jsonl path)."""
    from survey import load_persona_set

    s = load_persona_set(name)
    if as_json:
        echo_json({"name": s.name, "path": str(s.source), "description": s.description, "template": s.template,
                   "count": len(s.personas), "personas": [p.to_record() for p in s.personas],
                   "example_system_prompt": s.system_prompt(s.personas[0]), "target": s.target})
        return
    click.echo(f"{s.name}: {len(s.personas)} personas from {s.source}\n{s.description}\n")
    if s.target:
        click.echo(f"built to the target margins of {s.target.get('source')} (sha256 "
                   f"{str(s.target.get('sha256', ''))[:12]}...), quotas: " + "; ".join(
                       f"{a} " + ", ".join(f"{lvl} {k}" for lvl, k in q.items())
                       for a, q in s.target.get("quotas", {}).items()) + "\n")
    click.echo(f"template: {s.template}\nexample:  {s.system_prompt(s.personas[0])}\n")
    attrs = s.attribute_names
    print_table(f"first {min(limit, len(s.personas))} of {len(s.personas)}", ["id", *attrs],
                [[p.id, *(p.attributes.get(a, "") for a in attrs)] for p in s.personas[:limit]])


def _persona_generation_options(f):
    return _generation_options(f, "BACKEND:MODEL_ID, e.g. mistral:mistral-small-latest (with --target: optional; "
                               "without it the attributes the target does not give are drawn from the shopper "
                               "distributions, offline)", model_required=False,
                               seed_help="provider seed of the first request (+1 per request); with --target also "
                               "the seed of the quota draws (default 0)")


@personas.command("generate")
@_persona_generation_options
@click.option("--template", default=DEFAULT_TEMPLATE, help="system-prompt template; its {placeholders} are "
              "the attributes asked for  [default: the paper's shopper template]")
@click.option("--population", default="shopper", show_default=True, help="who the personas are")
@click.option("--max-tokens", type=click.IntRange(min=16), default=8192, show_default=True)
@click.option("--target", "target", type=click.Path(dir_okay=False), default=None,
              help="target margins (.toml or .csv): build the set by quota sampling so its margins match them")
def personas_generate(model_ref, count, out, seed, temperature, max_attempts, params, description, force,
                      as_json, template, population, max_tokens, target) -> None:
    """Generate a persona set with a model, validating and de-duplicating what it returns; with --target,
    a set whose margins are the target's quotas (quota sampling)."""
    from survey import PERSONAS_MAX, WHY, check_count

    check_count(count, "--count", 1, PERSONAS_MAX, WHY["personas"])
    path = _check_out(out, (".jsonl",), force)
    if target is not None:
        _generate_to_target(model_ref, target, count, path, seed, temperature, max_attempts, params, description,
                            force, as_json, template, population, max_tokens)
        return
    if model_ref is None:
        raise SurveyError("--model is required (BACKEND:MODEL_ID), or give --target FILE to build the set to target "
                          "margins offline")
    from survey import generate_persona_set

    with _generation_bar(model_ref, as_json) as on_progress:
        pset, result = generate_persona_set(model_ref, count, path.stem, template=template, population=population,
                                            description=description, temperature=temperature,
                                            max_tokens=max_tokens, seed=seed, max_attempts=max_attempts,
                                            params=_parse_params(params), on_progress=on_progress)
    if pset is None:
        _nothing_kept(model_ref, "persona", result)
    from survey import write_atomic

    write_atomic(path, pset.dumps(), force=force)
    _report(result, path, "personas", as_json, {"name": path.stem})


def _generate_to_target(model_ref, target, count, path, seed, temperature, max_attempts, params, description, force,
                        as_json, template, population, max_tokens) -> None:
    from survey import read_target_file, write_atomic

    tf = read_target_file(target)
    if model_ref is None:
        from survey import persona_set_to_target

        pset = persona_set_to_target(tf, count, path.stem, seed=0 if seed is None else seed, template=template,
                                     description=description)
        write_atomic(path, pset.dumps(), force=force)
        info = {"out": str(path), "name": path.stem, "kept": len(pset.personas), "target": pset.target}
        if as_json:
            echo_json(info)
        else:
            _print_quotas(pset.target["quotas"])
            click.echo(f"wrote {len(pset.personas)} personas to {path}, built to the target margins of {target} "
                       "(other attributes from the shopper distributions)")
        return
    from survey import generate_persona_set_to_target

    with _generation_bar(model_ref, as_json) as on_progress:
        pset, result = generate_persona_set_to_target(
            model_ref, tf, count, path.stem, template=template, population=population, description=description,
            temperature=temperature, max_tokens=max_tokens, seed=seed, max_attempts=max_attempts,
            params=_parse_params(params), on_progress=on_progress)
    if pset is None:
        if result.interrupted:
            click.echo(f"interrupted after {len(result.kept)} of {count} personas; nothing written", err=True)
            raise SystemExit(130)
        raise SurveyError(f"{model_ref} wrote {len(result.kept)} of the {count} personas the quotas need in "
                          f"{result.attempts} request(s); nothing written (a set short of a quota misses the "
                          "target). Raise --max-attempts or use a stronger --model")
    write_atomic(path, pset.dumps(), force=force)
    if not as_json:
        _print_quotas(pset.target["quotas"])
    _report(result, path, "personas", as_json, {"name": path.stem, "target": pset.target})


def _print_quotas(quotas: dict) -> None:
    print_table("quotas (personas per level)", ["attribute", "level", "personas"],
                [[attr, level, k] for attr, levels in quotas.items() for level, k in levels.items()])


# ---- perturbations ---------------------------------------------------------------------------------

@click.group("perturbations")
def perturbations() -> None:
    """Perturbation sets: perturbations/NAME.yaml in ./perturbations, then the project's shipped ones."""


@perturbations.command("list")
@json_option
def perturbations_list(as_json: bool) -> None:
    """List the perturbation sets on the search path."""
    from survey import perturbation_set_paths, read_perturbation_set

    rows = []
    for name, path in perturbation_set_paths().items():
        row = {"name": name, "path": str(path), "origin": _origin(path)}
        try:
            s = read_perturbation_set(path)
            row.update(message=s.message, count=len(s.items), description=s.description)
        except SurveyError as exc:
            row.update(error=str(exc))
        rows.append(row)
    if as_json:
        echo_json(rows)
        return
    print_table("perturbation sets", ["name", "message", "paraphrases", "origin", "path"],
                [[r["name"], r.get("message", r.get("error", "")), r.get("count", "INVALID"), r["origin"],
                  r["path"]] for r in rows])


@perturbations.command("show")
@click.argument("name")
@click.option("--similarity", type=click.FloatRange(0, 1, min_open=True), default=NEAR_THRESHOLD,
              show_default=True, help="report paraphrase pairs at least this similar (see docs/registries.md)")
@json_option
def perturbations_show(name: str, similarity: float, as_json: bool) -> None:
    """Validate and show a perturbation set (a name or a .yaml path), with any near-duplicate pairs."""
    from survey import load_perturbation_set, near_duplicate_pairs

    s = load_perturbation_set(name)
    pairs = [{"a": s.items[i].id, "b": s.items[j].id, "similarity": r}
             for i, j, r in near_duplicate_pairs(s.texts, similarity)]
    if as_json:
        echo_json({"name": s.name, "path": str(s.source), "message": s.message, "description": s.description,
                   "count": len(s.items), "paraphrases": [p.model_dump() for p in s.items],
                   "near_duplicates": pairs})
        return
    click.echo(f"{s.name}: message '{s.message}', {len(s.items)} paraphrases from {s.source}\n{s.description}\n")
    print_table("paraphrases", ["id", "text"], [[p.id, p.text] for p in s.items])
    click.echo(f"near-duplicate pairs (similarity >= {similarity}): "
               + (", ".join(f"{p['a']}~{p['b']} ({p['similarity']})" for p in pairs) or "none"))


@perturbations.command("generate")
@_generation_options
@click.option("--message", "message", required=True, help="the sentence to paraphrase")
@click.option("--id", "message_id", default=None, help="message id  [default: the --out file name]")
@click.option("--similarity", type=click.FloatRange(0, 1, min_open=True), default=NEAR_THRESHOLD,
              show_default=True, help="near-duplicate threshold (see docs/registries.md)")
@click.option("--include-message/--no-include-message", default=True, show_default=True,
              help="keep the message itself as the first paraphrase, as the paper does")
@click.option("--max-tokens", type=click.IntRange(min=16), default=4096, show_default=True)
def perturbations_generate(model_ref, count, out, seed, temperature, max_attempts, params, description, force,
                           as_json, message, message_id, similarity, include_message, max_tokens) -> None:
    """Generate paraphrases of a message with a model; exact and near duplicates are removed and reported."""
    from survey import PARAPHRASES_MAX, WHY, check_count, generate_perturbation_set

    check_count(count, "--count", 1, PARAPHRASES_MAX, WHY["paraphrases"])
    path = _check_out(out, (".yaml", ".yml"), force)
    with _generation_bar(model_ref, as_json) as on_progress:
        pset, result = generate_perturbation_set(model_ref, message, count, path.stem, message_id=message_id,
                                                 similarity=similarity, include_message=include_message,
                                                 description=description, temperature=temperature,
                                                 max_tokens=max_tokens, seed=seed, max_attempts=max_attempts,
                                                 params=_parse_params(params), on_progress=on_progress)
    if pset is None:
        _nothing_kept(model_ref, "paraphrase", result)
    from survey import write_atomic

    write_atomic(path, pset.dumps(), force=force)
    _report(result, path, "paraphrases", as_json, {"name": path.stem, "message": pset.message})


def register(cli: click.Group) -> None:
    cli.add_command(personas)
    cli.add_command(perturbations)
