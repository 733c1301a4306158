"""Every notebook in JupyterLab + Chromium, every explorer moved the way a learner moves it (issue 6); the English
edition's notebooks of conftest.ENGLISH_STEMS too, with English expectations (issue 44).

The notebooks and explorers are discovered, not listed: a new notebook is run here as soon as it exists, and a
new explorer is at least moved generically; add its row in explorer_steps.py to check its numbers.
"""

from __future__ import annotations

import time

import pytest

from . import page_js as js
from .conftest import ALT_LANGS, ARTIFACTS, KERNEL_TIMEOUT_MS, STEP_TIMEOUT_MS, edition_of, explorers_in, file_label
from .explorer_steps import INTERACTIONS, Step

pytestmark = pytest.mark.browser

QUIET_MS = 150  # the explorer counts as settled after this long without a DOM change and with an idle kernel
# between two keys typed into a text box, and from the last one to Enter: a practised typist (about 80 words a
# minute)
KEY_INTERVAL_MS = 150
SWEEP = 8  # latency samples per slider / toggle group (issue 16): each one a new value, so no cached frame


def test_notebook_runs_clean(notebook):
    """Open, wait for an idle kernel, Run All; no error/stderr output, every widget and image rendered, no console
    error, no request leaving 127.0.0.1."""
    assert not notebook.problems, f"{notebook.stem}:\n  " + "\n  ".join(notebook.problems)


def test_explorer_follows_the_learner(notebook, explorer):
    stem, page = notebook.stem, notebook.lab.page
    cell = dict(explorers_in(stem))[explorer]
    root = page.locator(f'[data-ln-cell="{cell}"] .jp-OutputArea-output > .jupyter-widgets').first
    assert root.count() == 1, f"{stem} {explorer}: no rendered widget in cell {cell}"
    # a viewport tall enough for the whole explorer: off-screen cells are not rendered (content-visibility)
    original = page.viewport_size
    box = root.bounding_box()
    tall = max(original["height"], min(int(box["height"] if box else 0) + 300, 16_000))
    page.set_viewport_size({"width": original["width"], "height": tall})
    try:
        failures = interact(notebook, explorer, page, root, cell)
    finally:
        page.set_viewport_size(original)
    assert not failures, f"{stem} {explorer}:\n  " + "\n  ".join(failures)


def interact(notebook, explorer: str, page, root, cell: int) -> list[str]:
    stem = notebook.stem
    root.scroll_into_view_if_needed()
    handle = root.element_handle()
    controls = page.evaluate(js.CONTROLS, [handle, js.CONTROL_SELECTORS])
    assert controls, f"{stem} {explorer}: no control found in the rendered explorer"

    steps = list(INTERACTIONS.get((stem, explorer), []))
    touched: set[tuple[str, int]] = set()
    failures: list[str] = []
    for step in steps:
        index = resolve(step, controls)
        touched.add((step.control, index))
        failures += run_step(
            notebook, explorer, page, handle, step, index, generic=False, label=label_of(controls, step.control, index)
        )
        controls = page.evaluate(js.CONTROLS, [handle, js.CONTROL_SELECTORS])

    # every control the rows did not move is moved generically: some output must change
    for first in list(controls):
        key = (first["kind"], first["index"])
        # as the control is now: a step before may have disabled it (TrainingExplorer's last ticked checkbox)
        control = next((c for c in controls if (c["kind"], c["index"]) == key), None)
        if key in touched or control is None or control["disabled"]:
            continue
        step = generic_step(control)
        if step is None:
            failures.append(f"{control['kind']} {control['label']!r}: no row in explorer_steps.py moves it")
            continue
        failures += run_step(
            notebook, explorer, page, handle, step, control["index"], generic=True, label=control["label"]
        )
        controls = page.evaluate(js.CONTROLS, [handle, js.CONTROL_SELECTORS])

    failures += sweep(notebook, explorer, page, handle)

    shoot_element(
        page,
        page.locator(f'[data-ln-cell="{cell}"]'),
        ARTIFACTS / f"{file_label(stem)}--{explorer.replace('#', '-')}.png",
    )
    problems = page.evaluate(js.PROBLEMS, ALT_LANGS[notebook.edition])["problems"]
    failures += [f"after the interactions: {p}" for p in problems if p not in notebook.problems]
    return failures


def sweep(notebook, explorer: str, page, handle) -> list[str]:
    """Latency samples (issue 16): every slider pressed SWEEP times (ArrowRight, turning back at either end) and
    every toggle group clicked through its options, each press measured from the key or click to the new output
    painted. Text boxes are measured by their rows in explorer_steps.py."""
    failures: list[str] = []
    # Some output must change: the picture, or — when a step is too small to change a single pixel (ε from 3e-5 to
    # 1e-4 on 苹果 moves x̂ by 1e-6, and the explorer then sends the very same frame) — the table's numbers.
    changed = ("any",)
    controls = page.evaluate(js.CONTROLS, [handle, js.CONTROL_SELECTORS])
    for control in [c for c in controls if c["kind"] in ("slider", "toggle")]:
        kind, index, direction = control["kind"], control["index"], "ArrowRight"
        # a toggle group goes round its options a whole number of times and ends where it started, so a group
        # that another one enables (AxisExplorer's 哪一个 needs 按行 or 按列) is still enabled for its own turn
        n = len(control["options"])
        count = n * max(1, SWEEP // n) if kind == "toggle" and n > 1 else SWEEP
        for _ in range(count):
            # settle first: a model switch sends its picture before the controls' new options, so options read
            # in between are stale (seen under load: '50 步' read from the Transformer, then gone with the MLP)
            wait_quiet(page, handle)
            now = next(
                (
                    c
                    for c in page.evaluate(js.CONTROLS, [handle, js.CONTROL_SELECTORS])
                    if c["kind"] == kind and c["index"] == index
                ),
                None,
            )
            if now is None or now["disabled"]:
                break
            if kind == "slider":
                if now["at_max"]:
                    direction = "ArrowLeft"
                elif now["at_min"]:
                    direction = "ArrowRight"
                step = Step("slider", index, key=direction, changed=changed)
            else:
                options = now["options"]
                if len(options) < 2:
                    break
                step = Step("toggle", index, click=options[(now["active"] + 1) % len(options)], changed=("any",))
            failures += run_step(
                notebook, explorer, page, handle, step, index, generic=False, label=now["label"], sweep=True
            )
    return failures


# --- helpers ------------------------------------------------------------------------------------------------------


def label_of(controls: list[dict], kind: str, index: int) -> str:
    return next((c["label"] for c in controls if c["kind"] == kind and c["index"] == index), "")


def resolve(step: Step, controls: list[dict]) -> int:
    mine = [c for c in controls if c["kind"] == step.control]
    if isinstance(step.which, int):
        assert step.which < len(mine), f"{step.describe()}: only {len(mine)} {step.control} control(s)"
        return step.which
    for c in mine:
        if step.which in c["label"]:
            return c["index"]
    raise AssertionError(
        f"{step.describe()}: no {step.control} labelled {step.which!r} in {[c['label'] for c in mine]}"
    )


def generic_step(control: dict) -> Step | None:
    kind = control["kind"]
    if kind == "slider":
        return Step("slider", control["index"], key="ArrowLeft" if control["at_max"] else "ArrowRight")
    if kind in ("toggle", "dropdown"):
        options = control["options"]
        if len(options) < 2:
            return None
        other = options[(control["active"] + 1) % len(options)]
        return Step(kind, control["index"], **({"click": other} if kind == "toggle" else {"choose": other}))
    if kind == "checkbox":
        return Step("checkbox", control["index"])
    return None  # text: only a row knows what to type


def run_step(
    notebook, explorer: str, page, root, step: Step, index: int, generic: bool, label: str = "", sweep: bool = False
) -> list[str]:
    container = root_locator(page, root).locator(js.CONTROL_SELECTORS[step.control]).nth(index)
    what = f"{'(generic) ' if generic else ''}{step.describe()}"
    entry = {
        "notebook": notebook.stem,
        "edition": edition_of(notebook.stem),
        "explorer": explorer,
        "control": what,
        "latency_ms": None,
        "ok": False,
        "generic": generic,
        "kind": step.control,
        "label": label.rstrip("：: ") or step.control,
        "sweep": sweep,
    }
    label = what
    notebook.lab.report.interactions.append(entry)
    wait_quiet(page, root)
    spec = {
        "expect": list(step.expect),
        "expect_re": list(step.expect_re),
        "absent": list(step.absent),
        "changed": list(step.changed),
        "unchanged": list(step.unchanged),
    }
    if page.evaluate(js.ARM, [root, spec]):
        page.evaluate(js.PROBE_FAIL_STATE, [root])
        return [f"{label}: the expected state already holds before the step (the step proves nothing)"]
    t0 = time.monotonic()
    try:
        act(page, container, step)
        page.wait_for_function(js.PROBE_DONE, timeout=STEP_TIMEOUT_MS)
        if not sweep:  # a checked step must still hold once everything has settled (a sweep's next step waits anyway)
            wait_quiet(page, root)
            if not page.evaluate("() => window.__lnProbe.check()"):
                raise AssertionError("the expected state did not last")
    except Exception as err:  # noqa: BLE001 - reported with what the explorer shows
        shown = page.evaluate(js.PROBE_FAIL_STATE, [root])
        return [
            f"{label}: {type(err).__name__}: {str(err).splitlines()[0][:200]} after "
            f"{time.monotonic() - t0:.1f} s; the explorer shows:\n{shown}"
        ]
    result = page.evaluate(js.PROBE_RESULT)
    entry["latency_ms"] = None if result["latency_ms"] is None else round(result["latency_ms"], 1)
    entry["ok"] = True
    return []


def root_locator(page, root):
    cell = root.evaluate("(el) => el.closest('[data-ln-cell]').getAttribute('data-ln-cell')")
    return page.locator(f'[data-ln-cell="{cell}"] .jp-OutputArea-output > .jupyter-widgets').first


def act(page, container, step: Step) -> None:
    if step.control == "text":
        box = container.locator("input, textarea").first
        box.click()
        page.keyboard.press("ControlOrMeta+A")
        # at a person's pace: the keys reach the kernel as a draft, which it draws ahead once they pause; the text
        # box applies the vector on Enter
        page.keyboard.type(step.type, delay=KEY_INTERVAL_MS)
        page.wait_for_timeout(KEY_INTERVAL_MS)
        wait_quiet(page, container.element_handle())
        page.keyboard.press("Enter")  # the key whose effect is measured
    elif step.control == "slider":
        container.locator(".noUi-handle").first.focus()
        page.keyboard.press(step.key or "ArrowRight")
    elif step.control == "toggle":
        container.get_by_role("button", name=step.click, exact=True).click()
    elif step.control == "dropdown":
        select = container.locator("select")
        if step.choose is not None:
            select.select_option(label=step.choose)
        else:
            select.focus()
            page.keyboard.press(step.key)
    elif step.control == "checkbox":
        container.locator("input[type=checkbox]").click()
    else:
        raise ValueError(f"unknown control kind {step.control!r}")


def wait_quiet(page, root) -> None:
    root_el = root_handle(root)
    page.wait_for_function(js.QUIET, arg=[root_el, QUIET_MS], timeout=STEP_TIMEOUT_MS, polling=50)


def root_handle(el):
    """The explorer's root element for any element inside it."""
    return el.evaluate_handle("(e) => e.closest('.jp-OutputArea-output > .jupyter-widgets') || e")


def shoot_element(page, locator, path) -> None:
    original = page.viewport_size
    box = locator.bounding_box()
    height = max(original["height"], min(int(box["height"]) + 200, 16_000)) if box else original["height"]
    page.set_viewport_size({"width": original["width"], "height": height})
    try:
        locator.scroll_into_view_if_needed()
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        locator.screenshot(path=str(path))
    finally:
        page.set_viewport_size(original)


# --- issue 32: explorers that explain themselves ------------------------------------------------------------------
# These run after the explorer tests of the same notebook (pytest keeps the file's order within one notebook's
# module-scoped fixture), and the restart comes last: it leaves the notebook's explorers disconnected.

# lnlib.widgets.OFFLINE_MESSAGE, in each edition's language
NOTICES = {"zh": "重新运行上面的单元格", "en": "Run the cells above and this cell again"}
NOTICE = NOTICES["zh"]


def test_explorer_tables_are_as_compact_as_the_static_ones(notebook):
    """VectorExplorer's rows measured 22.2 px against the static stage table's 19.5 px: an HTML widget's text
    inherits a control's 28 px line height. An explorer's table cells are laid out like the static tables' cells
    (line height, font size, padding), so a row of the same text is as tall. (Row heights themselves differ with
    the text: a row headed by a Chinese token is 23 px in either kind of table.)"""
    if not explorers_in(notebook.stem):
        pytest.skip("no explorer in this notebook")
    metrics = notebook.lab.page.evaluate(js.CELL_METRICS)
    if not metrics["static"] or not metrics["explorer"]:
        pytest.skip("no static table or no explorer table to compare")
    extra = sorted(set(metrics["explorer"]) - set(metrics["static"]))
    assert not extra, f"{notebook.stem}: explorer cells laid out as {extra}, static cells as {metrics['static']}"


def test_explorers_say_what_to_run_when_opened_and_after_a_restart(notebook):
    """Opened (stored outputs, not yet run) and after "Restart Kernel": every explorer shows its edition's notice
    and nothing its controls could disagree with (no control, picture or table of the dead state)."""
    notice = NOTICES[edition_of(notebook.stem)]
    found = explorers_in(notebook.stem)
    if not found:
        pytest.skip("no explorer in this notebook")
    page, cells = notebook.lab.page, [cell for _, cell in found]
    failures = []
    for name, cell in found:
        shown = notebook.result.get("explorers_on_open", {}).get(str(cell))
        if not shown or notice not in shown["text"] or shown["others"] or shown["images"]:
            failures.append(f"{name} (cell {cell}) when opened: {shown}")
    original = page.viewport_size
    page.set_viewport_size({"width": original["width"], "height": 16_000})  # every cell laid out
    try:
        page.evaluate(js.RESTART)
        page.wait_for_function(js.KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
        # the views turn disconnected as the kernel restarts; wait for that (bounded), then check every explorer
        page.wait_for_function(
            """(cells) => cells.every(i => { const c = window.__lnNb.content.widgets[i];
                 const r = c && c.node.querySelector('.ln-explorer');
                 return r && r.classList.contains('jupyter-widgets-disconnected'); })""",
            arg=cells,
            timeout=STEP_TIMEOUT_MS,
            polling=100,
        )
        after = page.evaluate(js.EXPLORER_STATE, cells)
        for name, cell in found:
            shown = after.get(str(cell))
            if not shown or notice not in shown["text"] or shown["others"] or shown["images"]:
                failures.append(f"{name} (cell {cell}) after a restart: {shown}")
        shoot_element(
            page,
            page.locator(f'[data-ln-cell="{cells[0]}"]'),
            ARTIFACTS / f"{file_label(notebook.stem)}--{found[0][0].replace('#', '-')}--restarted.png",
        )
    finally:
        page.set_viewport_size(original)
    assert not failures, "\n  ".join(failures)
