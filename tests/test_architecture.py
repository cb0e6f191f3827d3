"""docs/architecture.svg is what islands.plots.architecture draws from the layering table
(islands.layers) and the run's path, each step of that path names code that exists, and the page
around the picture names every step. The picture is compared by the description it carries in its
metadata, not by its bytes (which vary with the matplotlib version)."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

from islands.layers import LAYERS, MAY_IMPORT
from islands.plots.architecture import PICTURE_PATH, RUN_EDGES, RUN_PATH, description, main, stored_description

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "architecture.md"


def plain(described: dict) -> dict:
    return json.loads(json.dumps(described))  # tuples as lists, as the SVG's JSON has them


def test_docs_architecture_svg_is_current():
    assert PICTURE_PATH == REPO / "docs" / "architecture.svg"
    assert stored_description(PICTURE_PATH) == plain(description()), (
        "docs/architecture.svg is stale: run `make architecture` (python -m islands.plots.architecture)"
    )


def test_a_drawn_picture_carries_its_description(tmp_path, capsys):
    target = tmp_path / "architecture.svg"
    assert main([str(target)]) == 0
    assert stored_description(target) == plain(description())
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    "change",
    ["a layer may import one more", "a layer's role reworded", "a step moved"],
)
def test_the_comparison_sees_a_change(change):
    layers, steps = list(LAYERS), list(RUN_PATH)
    if change == "a layer may import one more":
        model = next(i for i, layer in enumerate(layers) if layer.name == "islands.model")
        layers[model] = dataclasses.replace(layers[model], may_import=(*layers[model].may_import, "islands.measure"))
    elif change == "a layer's role reworded":
        layers[0] = dataclasses.replace(layers[0], role=layers[0].role + ".")
    else:
        steps[0] = dataclasses.replace(steps[0], where="islands.cli.run_command:run_from_args")
    assert plain(description(layers, steps)) != stored_description(PICTURE_PATH)


def test_the_picture_draws_the_layering_table():
    described = description()
    assert [(d["name"], tuple(d["may_import"])) for d in described["layers"]] == list(MAY_IMPORT.items())
    rows = {d["name"]: d["row"] for d in described["layers"] + described["below"]}
    for source, target in described["arrows"]:
        if source != "islands._core":  # the compiled module above the C++ engine
            assert target in MAY_IMPORT[source] or "islands" in MAY_IMPORT[source], (source, target)
        assert rows[source] > rows[target], (source, target)  # every arrow points down


def _defines(module: str, qualified: str) -> bool:
    path = REPO.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    body: list[ast.stmt] = ast.parse(path.read_text()).body
    for part in qualified.split("."):
        found = [
            node
            for node in body
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part)
            or (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == part)
            or (isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id == part for n in node.targets))
        ]
        if not found:
            return False
        body = getattr(found[0], "body", [])
    return True


def test_a_name_that_is_not_there_is_not_found():
    assert _defines("islands.execution.runner", "plan")
    assert not _defines("islands.execution.runner", "no_such_function")
    assert not _defines("islands.experiments.sweep", "Sweep.no_such_method")
    assert not _defines("islands.figures.catalog", "DRAW")


@pytest.mark.parametrize("step", RUN_PATH, ids=lambda s: s.key)
def test_every_step_of_the_run_path_names_real_code(step):
    assert step.layer in MAY_IMPORT or step.layer in ("islands._core", "csrc")
    if step.where.startswith("csrc/"):
        assert (REPO / step.where).is_file(), step.where
    else:
        module, _, qualified = step.where.partition(":")
        assert module == step.layer or module.startswith(step.layer + "."), step
        assert _defines(module, qualified), f"{step.where} is not defined"
    keys = {s.key for s in RUN_PATH}
    assert {k for edge in RUN_EDGES for k in edge[:2]} <= keys


def test_the_page_shows_the_picture_and_names_every_step():
    page = PAGE.read_text()
    assert "](architecture.svg)" in page
    for step in RUN_PATH:
        assert f"`{step.where}`" in page, f"docs/architecture.md does not name {step.where}"
    assert "islands/layers.py" in page and "make architecture" in page
    assert "(docs/architecture.md)" in (REPO / "README.md").read_text()
