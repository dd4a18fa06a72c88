"""An instructor's homework page while it is being written (grader/assignment.py).

* MyST that Jupyter and Colab would show as raw text is refused, also where it sits in backticks: a
  ``{ref}``, ``{eq}`` or ``{numref}`` role is a name followed by a backtick span, and a fenced directive
  (```` ```{note} ````) opens like a code block; code that shows MyST on purpose is not refused
  (``tools/student.py``, ``raw_myst``);
* the page runs in Jupyter beside its ``checks.py`` with a cell ``import checks``, and the same page
  builds: the notebooks leave that cell out, the carrier cell defining ``checks`` there.
"""

import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))

from grader import assignment as tool  # noqa: E402
import book  # noqa: E402  (tools/book.py)
import student  # noqa: E402  (tools/student.py)

PAGE = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---

    # Week 5: the mean

    ```{code-cell} ipython3
    import numpy as np
    import checks
    ```

    ```{exercise-start} The sample mean
    :label: ex-week5-mean
    ```

    Write `sample_mean(x)`, the maximum likelihood estimate of a Gaussian's mean. MARKER

    ```{code-cell} ipython3
    :tags: [starter]
    def sample_mean(x):
        raise NotImplementedError
    ```

    ```{exercise-end}
    ```

    ```{solution-start} ex-week5-mean
    :class: dropdown
    ```

    ```{code-cell} ipython3
    :tags: [solution]
    def sample_mean(x):
        return float(np.mean(x))
    ```

    ```{solution-end}
    ```

    ```{code-cell} ipython3
    :tags: [check]
    checks.sample_mean(sample_mean)
    ```
    """)
CHECKS = textwrap.dedent("""\
    import numpy as np
    from lib.checks._core import Failure, call, check, expect_scalar


    @check("ex-week5-mean", "right on the sample [1, 2, 6].")
    def sample_mean(fn):
        got = expect_scalar(call(fn, np.array([1.0, 2.0, 6.0])), "the mean", name="sample_mean")
        if abs(got - 3.0) > 1e-12:
            raise Failure("not the mean of [1, 2, 6].")
    """)


def _page(folder, marker="", imports="import numpy as np\nimport checks"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "checks.py").write_text(CHECKS)
    md = folder / "hw5.md"
    md.write_text(PAGE.replace("MARKER", marker).replace("import numpy as np\nimport checks", imports))
    return md


def _markdown(text):
    return {"cells": [{"cell_type": "markdown", "id": "c1", "metadata": {}, "source": text}]}


RAW = {
    "a {ref} role": ("See {ref}`sec-mle`.", "a role: '{ref}`'"),
    "an {eq} role": ("By {eq}`eq-mean`.", "an {eq} role"),
    "a {numref} role": ("As {numref}`fig-mean` shows.", "a {numref} role"),
    "a fenced directive": ("\n\n```{note}\nThe mean is the MLE.\n```\n", "a fenced directive"),
    "a fenced directive after a code block": ("\n\n```python\nx = 1\n```\n\n```{hint}\nUse np.mean.\n```\n",
                                              "a fenced directive"),
    "a tilde-fenced directive": ("\n\n~~~{note}\nx\n~~~\n", "a fenced directive"),
}
SHOWN = {
    "a role in a code span": "Write ``{ref}`label` `` in MyST, or `{eq}` alone.",
    "a directive in a code block": "````md\n```{note}\nhi\n```\n````\n\nplain text",
    "code and math": "Just `np.mean(x)` and $\\bar x$.",
}


@pytest.mark.parametrize("case", list(RAW), ids=list(RAW))
def test_raw_myst_is_found_in_backticks(case):
    text, what = RAW[case]
    problems = student.raw_myst(_markdown(text))
    assert problems and any(what in p for p in problems), problems


@pytest.mark.parametrize("case", list(SHOWN), ids=list(SHOWN))
def test_myst_shown_as_code_is_not_refused(case):
    assert student.raw_myst(_markdown(SHOWN[case])) == []


@pytest.mark.parametrize("case", ["a {ref} role", "an {eq} role", "a {numref} role", "a fenced directive"])
def test_a_homework_page_with_raw_myst_is_refused(case, tmp_path, capsys):
    md = _page(tmp_path, RAW[case][0])
    assert tool.main([str(md)]) == 2
    err = capsys.readouterr().err
    assert "raw MyST" in err and RAW[case][1] in err and "Nothing was written." in err, err
    assert not (tmp_path / "build").exists()


def test_the_page_runs_in_jupyter_and_builds(tmp_path):
    """`import checks` makes the page run where it lies; the built notebooks leave that line out."""
    import nbclient

    md = _page(tmp_path / "week5")
    page = book.read_source(md)  # the page as Jupyter opens it (Jupytext), run beside its checks.py
    nbclient.NotebookClient(page, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(md.parent)}}).execute()
    check = next(c for c in page.cells if "check" in c.metadata.get("tags", []))
    assert "[PASSED]" in "".join(o.get("text", "") + str(o.get("data", {})) for o in check.outputs)
    hw, (student_path, key_path) = tool.build(md)  # executes the key in a folder of its own
    for path in (student_path, key_path):
        nb = nbformat.read(path, as_version=4)
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        assert not any("import checks" in source.splitlines() for source in code), path.name
        assert "import numpy as np" in code  # the rest of that cell stays
    built = nbformat.read(student_path, as_version=4)
    assert student.problems(built) == []
    # its set-up cell is the book's: PyPI's release, or else the wheel on the book's site
    setup = next(c for c in built.cells if c.cell_type == "code")
    assert setup.source == book.bootstrap_source(md).strip() and book.wheels_url() in setup.source


def test_only_a_plain_import_of_checks_is_left_out(tmp_path):
    """Only the statement `import checks` goes: `import checks as c` stays (and fails without checks.py)."""
    md = _page(tmp_path, imports="import numpy as np\nimport checks as c")
    from grader import assignment

    nb = assignment.student_notebook(assignment.load(md))
    assert any(c.source == "import numpy as np\nimport checks as c" for c in nb.cells if c.cell_type == "code")
